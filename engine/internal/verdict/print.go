package verdict

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// PrintMetrics writes the paired comparison as a plain-text table, with
// what each gating metric could have detected.
func PrintMetrics(w io.Writer, metrics []report.Metric) {
	if len(metrics) == 0 {
		return
	}
	fmt.Fprintf(w, "%-12s %10s %10s %9s %22s %8s  %-13s %s\n", "metric", "base", "head", "change", "confidence interval", "p", "outcome", "could detect")
	for _, m := range metrics {
		outcome := m.Outcome
		if !m.Gates {
			outcome += "*"
		}
		fmt.Fprintf(w, "%-12s %10s %10s %9s %22s %8.3g  %-13s %s\n", m.Name, Value(m, m.Base), Value(m, m.Head), FormatChange(m, m.Delta),
			fmt.Sprintf("%s to %s (%s)", FormatChange(m, m.CI[0]), FormatChange(m, m.CI[1]), Percent(m.CILevel)), m.P, outcome, Detectable(m))
	}
	fmt.Fprintln(w, "* reported, does not gate (set gate.latency to gate on latency)")
}

// Detectable says the smallest change the run could see, never below the
// threshold (a smaller one would not fail the gate anyway).
func Detectable(m report.Metric) string {
	if m.Detectable == nil {
		return fmt.Sprintf("nothing: %d pairs are too few", m.Pairs)
	}
	return "≥ " + FormatChange(m, max(*m.Detectable, m.Threshold))[1:]
}

// Value shows a metric's median: a percentage for absolute (rate)
// metrics, otherwise with precision fitting its size.
func Value(m report.Metric, v float64) string {
	switch {
	case m.Scale == "absolute":
		return fmt.Sprintf("%.2f%%", 100*v)
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
