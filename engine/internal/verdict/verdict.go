// Package verdict turns the valid pairs of an experiment into per-metric
// comparisons and the gate's verdict.
package verdict

import (
	"fmt"
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
	return n > 0 && stats.MayStop(outcomes(runs, cfg.Gate, Plan(cfg), n))
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
	if r.Scale == stats.Absolute {
		scale = metric.Absolute
	}
	return report.Metric{
		Name: r.Name, Unit: r.Unit, Scale: string(scale), Base: r.BaseMedian, Head: r.HeadMedian,
		Delta: r.Delta, CI: r.CI, CILevel: r.CILevel, P: r.PRegression, PImprovement: r.PImprovement,
		Outcome: r.Outcome, Threshold: r.Threshold, Gates: r.Gates, Pairs: r.Pairs, Detectable: r.Detectable,
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
	pairs := ValidPairs(runs)
	var inputs []stats.Input
	for _, m := range metric.Catalog {
		if !m.Compared() {
			continue
		}
		in := stats.Input{Name: m.Name, Unit: m.Unit, Scale: StatsScale(m.Scale), Threshold: m.Threshold(gate), Gates: m.Gates(gate)}
		for _, p := range pairs {
			b, okB := m.Value(p[0].Figures)
			h, okH := m.Value(p[1].Figures)
			if okB && okH {
				in.Base, in.Head = append(in.Base, b), append(in.Head, h)
			}
		}
		if len(in.Base) > 0 {
			inputs = append(inputs, in)
		}
	}
	return stats.Outcomes(inputs, plan, n)
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
		byOutcome[m.Outcome] = append(byOutcome[m.Outcome], describe(m))
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

// describe is one metric's evidence in a sentence fragment.
func describe(m report.Metric) string {
	c := metric.Of(m)
	s := fmt.Sprintf("%s %s (%s CI %s, p=%s, threshold %s)", m.Name, c.FormatChange(m.Delta),
		metric.Percent(m.CILevel), c.FormatInterval(m.CI[0], m.CI[1]), metric.PValue(m.P), c.FormatChange(m.Threshold))
	if m.Outcome == stats.Inconclusive && m.Detectable == nil {
		s += fmt.Sprintf("; %d pairs cannot reach significance at this alpha", m.Pairs)
	}
	return s
}

// ValidPairs returns, per pair number, the base and head runs when both are
// valid, in pair order.
func ValidPairs(runs []report.Run) [][2]report.Run {
	byPair := map[int]*[2]report.Run{}
	var order []int
	for _, r := range runs {
		if !r.Compared() {
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
