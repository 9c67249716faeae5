// Package verdict turns the valid pairs of an experiment into per-metric
// comparisons and the gate's verdict.
package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Plan is the sequential design of cfg: looks from pairs (the minimum of
// valid rounds) to max_pairs, spending gate.alpha across them.
func Plan(cfg *config.Config) stats.Plan {
	return stats.Plan{Alpha: cfg.Gate.Alpha, Min: cfg.Pairs, Max: cfg.MaxPairs}
}

// Family is the names of the metrics that gate under cfg, in catalog order.
func Family(cfg *config.Config) []string {
	var names []string
	for _, m := range metric.Catalog {
		if m.Gates(cfg.Gate) {
			names = append(names, m.Name)
		}
	}
	return names
}

// CheckPlan returns an error naming pairs, alpha, the gating metrics and
// the smallest workable values when no look of cfg's plan could ever call
// a regression: a gate that cannot fail is a configuration error, not a
// pass.
func CheckPlan(path string, cfg *config.Config) error {
	if err := Plan(cfg).Check(Family(cfg)); err != nil {
		return fmt.Errorf("%s: pairs and gate.alpha: %w", path, err)
	}
	return nil
}

// MayStop says whether the valid rounds so far decide the gate at one of
// the plan's looks, so the experiment may stop adding rounds.
func MayStop(runs []report.Run, cfg *config.Config) bool {
	n := len(ValidPairs(runs))
	return n > 0 && stats.MayStop(stats.Decisions(statsInputs(runs, cfg.Gate), Plan(cfg), n))
}

// Compare computes every compared metric of the catalog over the pairs
// whose two runs are both valid and have the figure, as a fixed design
// with one look at the pairs there are.
func Compare(runs []report.Run, gate config.Gate) []report.Metric {
	n := len(ValidPairs(runs))
	return CompareAtLook(runs, gate, stats.Plan{Alpha: gate.Alpha, Min: n, Max: n})
}

// CompareAtLook is Compare at the look of plan the valid pairs reached: the
// significance level is the part of alpha that look spends.
func CompareAtLook(runs []report.Run, gate config.Gate, plan stats.Plan) []report.Metric {
	var out []report.Metric
	for _, r := range outcomes(runs, gate, plan, len(ValidPairs(runs))) {
		out = append(out, ReportMetric(r))
	}
	return out
}

// ReportMetric is one comparison as report.json's metrics record it; the
// per-endpoint comparisons use the same form.
func ReportMetric(r stats.Result) report.Metric {
	scale := metric.Relative
	if r.Scale != stats.Relative {
		scale = metric.Absolute
	}
	return report.Metric{
		Name: r.Name, Unit: r.Unit, Scale: string(scale), Base: r.BaseMedian, Head: r.HeadMedian,
		Delta: r.Delta, CI: r.CI, CILevel: r.CILevel, P: r.PRegression, PImprovement: r.PImprovement,
		Outcome: r.Outcome, Threshold: r.Threshold, Gates: r.Gates, Pairs: r.Pairs, Detectable: r.Detectable, DetectableRange: r.DetectableRange, OC: ocOf(r.OC),
		RuledOutAbove: r.RuledOutAbove, RuledOutLevel: r.RuledOutLevel,
		Level: r.Level, Family: r.Family, InFamily: r.InFamily,
	}
}

// StatsScale is the statistics' scale of a catalog scale.
func StatsScale(s metric.Scale) stats.Scale {
	if s == metric.Absolute {
		return stats.Absolute
	}
	return stats.Relative
}

// outcomes runs the statistics of every compared metric after n valid
// rounds of plan.
func outcomes(runs []report.Run, gate config.Gate, plan stats.Plan, n int) []stats.Result {
	return stats.Outcomes(statsInputs(runs, gate), plan, n)
}

// statsInputs are the statistics' inputs of every compared metric: each
// catalog metric over the valid pairs (AllRounds ones over every measured
// pair), events counted where the metric counts them, and failures beside
// errors.
func statsInputs(runs []report.Run, gate config.Gate) []stats.Input {
	valid, measured := ValidPairs(runs), MeasuredPairs(runs)
	var inputs []stats.Input
	for _, m := range metric.Catalog {
		if !m.Compared() {
			continue
		}
		pairs := valid
		if m.AllRounds {
			pairs = measured
		}
		in := stats.Input{Name: m.Name, Unit: m.Unit, Scale: StatsScale(m.Scale), Threshold: m.Threshold(gate), Gates: m.Gates(gate)}
		if m.Events != nil {
			in.Scale = stats.Count
		}
		for _, p := range pairs {
			if m.Events != nil {
				// Counts are pooled per side, not paired: a run whose
				// events do not count leaves the other side's in.
				if b, exposure, ok := m.Events(p[0].Figures); ok {
					in.Base, in.BaseExposure = append(in.Base, b), append(in.BaseExposure, exposure)
				}
				if h, exposure, ok := m.Events(p[1].Figures); ok {
					in.Head, in.HeadExposure = append(in.Head, h), append(in.HeadExposure, exposure)
				}
				continue
			}
			b, okB := m.Value(p[0].Figures)
			h, okH := m.Value(p[1].Figures)
			if okB && okH {
				in.Base, in.Head = append(in.Base, b), append(in.Head, h)
			}
		}
		// A count whose events counted on one side only is still
		// compared: with no rounds to pool on the other, inconclusive.
		if len(in.Base) > 0 || len(in.Head) > 0 {
			inputs = append(inputs, in)
		}
		if m == metric.Errors && len(measured) > 0 {
			inputs = append(inputs, failures(measured))
		}
	}
	return inputs
}

// failures is metric.Failures over the measured pairs: per round and side,
// 1 when the side's service failed in it.
func failures(measured [][2]report.Run) stats.Input {
	in := stats.Input{Name: metric.Failures.Name, Unit: metric.Failures.Unit, Scale: stats.Binary, Gates: true}
	for _, p := range measured {
		in.Base, in.Head = append(in.Base, indicator(p[0].ServiceFailed)), append(in.Head, indicator(p[1].ServiceFailed))
	}
	return in
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// FailureStreak is how many rounds in a row in which the same side's
// service alone failed make its failures significant at the first look
// of cfg's plan (the rounds of a service that fails every time): an
// experiment measures that many before it gives up, so that such a head
// is called a regression and not only an invalid measurement. Holm's
// family then holds two: errors weigh the same rounds whenever the
// failures show as errors, which a crash or a timeout does.
func FailureStreak(cfg *config.Config) int {
	return stats.MinRounds(Plan(cfg).LevelAt(cfg.Pairs), 2)
}

// Decide is the overall verdict from the gating metrics: any regression
// fails; otherwise an inconclusive metric makes the run inconclusive (not a
// pass); otherwise any improvement is an improvement.
func Decide(metrics []report.Metric) (verdict, reason string, counts map[string]int) {
	counts = map[string]int{stats.Regression: 0, stats.Improvement: 0, stats.Unchanged: 0, stats.Inconclusive: 0}
	byOutcome := map[string][]string{}
	for _, m := range metrics {
		if !m.Gates {
			continue
		}
		counts[m.Outcome]++
		byOutcome[m.Outcome] = append(byOutcome[m.Outcome], Describe(m))
	}
	switch {
	case counts[stats.Regression] > 0:
		return report.Regression, "regression: " + strings.Join(byOutcome[stats.Regression], "; "), counts
	case counts[stats.Inconclusive] > 0:
		return report.Inconclusive, "inconclusive: " + strings.Join(byOutcome[stats.Inconclusive], "; "), counts
	case counts[stats.Improvement] > 0:
		return report.Improvement, "improvement: " + strings.Join(byOutcome[stats.Improvement], "; "), counts
	}
	return report.Pass, fmt.Sprintf("no gating metric changed beyond its threshold (%d unchanged)", counts[stats.Unchanged]), counts
}

// Describe is one metric's evidence in a sentence fragment.
func Describe(m report.Metric) string {
	if m.Name == metric.Failures.Name {
		return describeFailures(m)
	}
	c := metric.Of(m)
	s := fmt.Sprintf("%s %s (%s CI %s, %s, threshold %s)", m.Name, c.FormatChange(m.Delta),
		metric.Percent(m.CILevel), c.FormatInterval(m.CI[0], m.CI[1]), pAgainst(m, c), c.FormatChange(m.Threshold))
	if m.Outcome == stats.Inconclusive && m.Detectable == nil {
		s += fmt.Sprintf("; %d pairs cannot reach significance at this alpha", m.Pairs)
	}
	if m.Outcome == stats.Inconclusive && m.RuledOutLevel > 0 && m.RuledOutAbove > m.Threshold {
		s += fmt.Sprintf("; a rise up to %s not ruled out at %s", c.FormatChange(m.RuledOutAbove), metric.Percent(m.RuledOutLevel))
	}
	return s
}

// ocOf copies an operating characteristic into the report's form.
func ocOf(points []stats.OCPoint) []report.OCPoint {
	var oc []report.OCPoint
	for _, p := range points {
		oc = append(oc, report.OCPoint(p))
	}
	return oc
}

// pAgainst is the p-value of the test that decided m's outcome, with the
// change its hypothesis allows (δ0, stats.IndifferenceShare of the
// threshold): "p=0.004 against +0.75%". An improvement's, and any
// other decrease's (report.Metric.ShownP), is the test of a decrease.
func pAgainst(m report.Metric, c *metric.Metric) string {
	p, d0 := m.ShownP(), stats.IndifferenceShare*m.Threshold
	if m.Outcome == stats.Improvement || m.Delta < 0 && m.Outcome != stats.Regression {
		d0 = -d0
	}
	if d0 == 0 {
		return "p=" + metric.PValue(p)
	}
	return fmt.Sprintf("p=%s against %s", metric.PValue(p), c.FormatChange(d0))
}

// ValidPairs returns, per pair number, the base and head runs when both are
// valid, in pair order.
func ValidPairs(runs []report.Run) [][2]report.Run {
	return pairsOf(runs, report.Run.Compared)
}

// MeasuredPairs returns, per pair number, the base and head runs of every
// gating round (not a duet's profile round) in which both sides were
// measured over the window or their service failed, valid or not: the
// rounds that AllRounds metrics and failures compare. A run that was never
// measured (its reset failed, the measurement broke off) is left out.
func MeasuredPairs(runs []report.Run) [][2]report.Run {
	return pairsOf(runs, func(r report.Run) bool {
		return !r.ProfileRound && (r.Figures.Requests > 0 || r.ServiceFailed)
	})
}

// pairsOf returns, per pair number, the base and head runs that keep
// accepts when both sides have one, in pair order.
func pairsOf(runs []report.Run, keep func(report.Run) bool) [][2]report.Run {
	byPair := map[int]*[2]report.Run{}
	var order []int
	for _, r := range runs {
		if !keep(r) {
			continue
		}
		p, ok := byPair[r.Pair]
		if !ok {
			p = &[2]report.Run{}
			byPair[r.Pair] = p
			order = append(order, r.Pair)
		}
		if metric.SideOf(r) == metric.Base {
			p[0] = r
		} else {
			p[1] = r
		}
	}
	var out [][2]report.Run
	for _, n := range order {
		if p := byPair[n]; p[0].Side != "" && p[1].Side != "" {
			out = append(out, *p)
		}
	}
	return out
}

// describeFailures counts the rounds in which each side's service failed,
// e.g. "failures: head's service failed in 8 of 8 rounds, base's in 0
// (p=0.004)".
func describeFailures(m report.Metric) string {
	rounds := func(rate float64) int { return int(math.Round(rate * float64(m.Pairs))) }
	p := m.P
	if m.Outcome == stats.Improvement {
		p = m.PImprovement
	}
	return fmt.Sprintf("failures: head's service failed in %d of %d rounds, base's in %d (p=%s)",
		rounds(m.Head), m.Pairs, rounds(m.Base), metric.PValue(p))
}
