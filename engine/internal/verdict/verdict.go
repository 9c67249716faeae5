// Package verdict turns the valid pairs of an experiment into per-metric
// comparisons and the gate's verdict.
package verdict

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// metricSpec says where a metric comes from and how it gates.
type metricSpec struct {
	name, unit string
	scale      stats.Scale
	value      func(report.Figures) (float64, bool)
	threshold  func(config.Gate) float64
	// gates is nil for metrics that always gate.
	gates func(config.Gate) bool
}

var metrics = []metricSpec{
	{name: "cpu", unit: "µs/req", value: func(f report.Figures) (float64, bool) { return f.CPUMicrosPerRequest, f.CPUSource != "" },
		threshold: func(g config.Gate) float64 { return float64(g.CPU) }},
	{name: "allocs", unit: "allocs/req", value: func(f report.Figures) (float64, bool) { return deref(f.AllocsPerRequest) },
		threshold: func(g config.Gate) float64 { return float64(g.Allocs) }},
	{name: "bytes", unit: "B/req", value: func(f report.Figures) (float64, bool) { return deref(f.BytesPerRequest) },
		threshold: func(g config.Gate) float64 { return float64(g.Bytes) }},
	{name: "errors", unit: "ratio", scale: stats.Absolute, value: func(f report.Figures) (float64, bool) { return f.ErrorRate, true },
		threshold: func(g config.Gate) float64 { return float64(g.Errors) }},
	{name: "latency_p50", unit: "ms", value: func(f report.Figures) (float64, bool) { return f.LatencyP50Ms, true },
		threshold: latencyThreshold, gates: latencyGates},
	{name: "latency_p90", unit: "ms", value: func(f report.Figures) (float64, bool) { return f.LatencyP90Ms, true },
		threshold: latencyThreshold, gates: latencyGates},
	{name: "latency_p99", unit: "ms", value: func(f report.Figures) (float64, bool) { return f.LatencyP99Ms, true },
		threshold: latencyThreshold, gates: latencyGates},
}

// latencyThreshold is gate.latency, or (when latency does not gate) the CPU
// threshold, so that latency outcomes are still shown on a sensible scale.
func latencyThreshold(g config.Gate) float64 {
	if g.Latency > 0 {
		return float64(g.Latency)
	}
	return float64(g.CPU)
}

func latencyGates(g config.Gate) bool { return g.Latency > 0 }

func deref(v *float64) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return *v, true
}

// Compare computes every metric over the pairs whose two runs are both
// valid and have the figure.
func Compare(runs []report.Run, gate config.Gate) []report.Metric {
	pairs := ValidPairs(runs)
	var inputs []stats.Input
	for _, m := range metrics {
		in := stats.Input{Name: m.name, Unit: m.unit, Scale: m.scale, Threshold: m.threshold(gate), Gates: m.gates == nil || m.gates(gate)}
		for _, p := range pairs {
			b, okB := m.value(p[0].Figures)
			h, okH := m.value(p[1].Figures)
			if okB && okH {
				in.Base, in.Head = append(in.Base, b), append(in.Head, h)
			}
		}
		if len(in.Base) > 0 {
			inputs = append(inputs, in)
		}
	}
	var out []report.Metric
	for _, r := range stats.Decide(inputs, gate.Alpha) {
		scale := "relative"
		if r.Scale == stats.Absolute {
			scale = "absolute"
		}
		out = append(out, report.Metric{
			Name: r.Name, Unit: r.Unit, Scale: scale, Base: r.BaseMedian, Head: r.HeadMedian,
			Delta: r.Delta, CI: r.CI, CILevel: r.CILevel, P: r.PRegression, PImprovement: r.PImprovement,
			Outcome: r.Outcome, Threshold: r.Threshold, Gates: r.Gates, Pairs: r.Pairs, Detectable: r.Detectable,
		})
	}
	return out
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
	s := fmt.Sprintf("%s %s (%s CI %s to %s, p=%.3g, threshold %s)", m.Name, FormatChange(m, m.Delta),
		Percent(m.CILevel), FormatChange(m, m.CI[0]), FormatChange(m, m.CI[1]), m.P, FormatChange(m, m.Threshold))
	if m.Outcome == stats.Inconclusive && m.Detectable == nil {
		s += fmt.Sprintf("; %d pairs cannot reach significance at this alpha", m.Pairs)
	}
	return s
}

// FormatChange shows a relative change as a signed percentage and an
// absolute one in percentage points.
func FormatChange(m report.Metric, v float64) string {
	if m.Scale == "absolute" {
		return fmt.Sprintf("%+.2f pp", 100*v)
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

// Percent shows a level like 0.98 as "98%".
func Percent(v float64) string { return fmt.Sprintf("%.4g%%", 100*v) }

// ValidPairs returns, per pair number, the base and head runs when both are
// valid, in pair order.
func ValidPairs(runs []report.Run) [][2]report.Run {
	byPair := map[int]*[2]report.Run{}
	var order []int
	for _, r := range runs {
		if !r.Valid {
			continue
		}
		p, ok := byPair[r.Pair]
		if !ok {
			p = &[2]report.Run{}
			byPair[r.Pair] = p
			order = append(order, r.Pair)
		}
		if r.Side == "base" {
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
