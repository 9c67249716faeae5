package history

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// mainViewPoints is how many nightly medians a gate shows: a month.
const mainViewPoints = 30

// wilcoxonEfficiency is the signed-rank test's asymptotic relative
// efficiency against the t-test for normal data (3/π): it needs about 5%
// more pairs for the same power.
const wilcoxonEfficiency = 3 / math.Pi

// MainView is where main stands for a gate measured on machine (its
// fingerprint's Machine): per gating metric, the latest nightly medians,
// from that machine's valid entries when there are any (portable metrics
// from every machine's), else from the machine with the latest entry; and
// the change a gate of maxPairs pairs could resolve at the recorded run
// spread. nil when no valid entry holds a gating metric.
func MainView(config string, entries []Entry, machine string, gate config.Gate, maxPairs int) *report.MainHistory {
	valid := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if e.Verdict == report.Pass {
			valid = append(valid, e)
		}
	}
	sort.SliceStable(valid, func(i, j int) bool { return valid[i].Time.Before(valid[j].Time) })
	if len(valid) == 0 {
		return nil
	}
	view := &report.MainHistory{Config: config, Entries: len(valid)}
	for _, m := range metric.Catalog {
		if !m.Gates(gate) {
			continue
		}
		pick, same := machine, true
		if !m.Portable && !hasMachine(valid, machine) {
			pick, same = valid[len(valid)-1].Fingerprint.Machine, false
		}
		mm := report.MainMetric{Name: m.Name, Unit: m.Unit, SameMachine: same}
		var spreads []float64
		for _, e := range valid {
			s, ok := e.Metrics[m.Name]
			if !ok || s.N == 0 || (!m.Portable && e.Fingerprint.Machine != pick) {
				continue
			}
			mm.Medians = append(mm.Medians, s.Median)
			mm.Commits = append(mm.Commits, e.Commit)
			if s.Median > 0 && s.N >= 3 {
				spreads = append(spreads, 1.4826*s.MAD/s.Median)
			}
		}
		if len(mm.Medians) == 0 {
			continue
		}
		if len(mm.Medians) > mainViewPoints {
			mm.Medians = mm.Medians[len(mm.Medians)-mainViewPoints:]
			mm.Commits = mm.Commits[len(mm.Commits)-mainViewPoints:]
		}
		if m.Scale == metric.Relative && len(spreads) > 0 {
			mm.RunSpread = stats.Median(spreads)
			mm.Resolvable = Resolvable(mm.RunSpread, maxPairs, gate.Alpha)
		}
		view.Metrics = append(view.Metrics, mm)
	}
	if len(view.Metrics) == 0 {
		return nil
	}
	return view
}

// Resolvable is the smallest relative change a paired gate of pairs
// pairs detects with 90% power at one-sided level alpha, when each run
// varies by spread (relative standard deviation) independently: a pair's
// difference then varies by √2·spread, and the signed-rank test needs
// 1/wilcoxonEfficiency times the t-test's pairs. The quantiles are
// Student's t with pairs−1 degrees of freedom (Cornish–Fisher's first
// term), which matters below 20 pairs. TestResolvableHasNinetyPercentPower
// checks it against the gate's own test.
func Resolvable(spread float64, pairs int, alpha float64) float64 {
	if spread <= 0 || pairs < 2 || alpha <= 0 || alpha >= 1 {
		return 0
	}
	df := float64(pairs - 1)
	t := func(p float64) float64 {
		z := math.Sqrt2 * math.Erfinv(2*p-1)
		return z + (z*z*z+z)/(4*df)
	}
	return (t(1-alpha) + t(DetectablePower)) * math.Sqrt2 * spread / math.Sqrt(wilcoxonEfficiency*float64(pairs))
}

// DetectablePower is the chance with which Resolvable's change is caught.
const DetectablePower = 0.9

func hasMachine(entries []Entry, machine string) bool {
	for _, e := range entries {
		if e.Fingerprint.Machine == machine {
			return true
		}
	}
	return false
}
