package results

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// figure is one per-run number compared between the sides.
type figure struct {
	name, unit string
	get        func(report.Figures) (float64, bool)
}

// Always and Optional adapt a figure for FigureOf: a plain number is always
// there, a pointer only when the run measured it.
func Always(v float64) (float64, bool) { return v, true }

func Optional(v *float64) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return *v, true
}

var figuresCompared = []figure{
	{"cpu", "µs/req", func(f report.Figures) (float64, bool) { return Always(f.CPUMicrosPerRequest) }},
	{"allocs", "allocs/req", func(f report.Figures) (float64, bool) { return Optional(f.AllocsPerRequest) }},
	{"bytes", "B/req", func(f report.Figures) (float64, bool) { return Optional(f.BytesPerRequest) }},
	{"gc", "GC/req", func(f report.Figures) (float64, bool) { return Optional(f.GCCyclesPerRequest) }},
	{"latency_p50", "ms", func(f report.Figures) (float64, bool) { return Always(f.LatencyP50Ms) }},
	{"latency_p90", "ms", func(f report.Figures) (float64, bool) { return Always(f.LatencyP90Ms) }},
	{"latency_p99", "ms", func(f report.Figures) (float64, bool) { return Always(f.LatencyP99Ms) }},
	{"latency_max", "ms", func(f report.Figures) (float64, bool) { return Always(f.LatencyMaxMs) }},
	{"throughput", "req/s", func(f report.Figures) (float64, bool) { return Always(f.Throughput) }},
	{"errors", "ratio", func(f report.Figures) (float64, bool) { return Always(f.ErrorRate) }},
	{"throttled", "ratio", func(f report.Figures) (float64, bool) { return Always(f.ThrottledRatio) }},
	{"memory_peak", "MiB", func(f report.Figures) (float64, bool) { return float64(f.MemoryPeakBytes) / (1 << 20), true }},
}

// Medians compares the sides' medians over their valid runs.
func Medians(runs []report.Run) []report.Median {
	var out []report.Median
	for _, fig := range figuresCompared {
		base, head := collect(runs, "base", fig), collect(runs, "head", fig)
		if len(base) == 0 && len(head) == 0 {
			continue
		}
		m := report.Median{Name: fig.name, Unit: fig.unit, Base: stats.Median(base), Head: stats.Median(head), BaseRuns: len(base), HeadRuns: len(head)}
		if m.Base != 0 && len(base) > 0 && len(head) > 0 {
			m.Delta = (m.Head - m.Base) / m.Base
		}
		out = append(out, m)
	}
	return out
}

func collect(runs []report.Run, side string, fig figure) []float64 {
	return SideValues(runs, side, fig.get)
}

// SideValues is one figure over a side's valid runs that have it.
func SideValues(runs []report.Run, side string, get func(report.Figures) (float64, bool)) []float64 {
	var vs []float64
	for _, r := range runs {
		if r.Side == side && r.Valid {
			if v, ok := get(r.Figures); ok {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// PrintComparison writes the short plain-text comparison of medians that
// ends a gate.
func PrintComparison(w io.Writer, medians []report.Median) {
	fmt.Fprintf(w, "%-12s %18s %18s %9s   %s\n", "metric", "base", "head", "delta", "valid runs (base/head)")
	for _, m := range medians {
		delta := "~"
		if m.BaseRuns > 0 && m.HeadRuns > 0 && m.Base != 0 {
			delta = fmt.Sprintf("%+.1f%%", 100*m.Delta)
		}
		fmt.Fprintf(w, "%-12s %18s %18s %9s   %d/%d\n", m.Name, format(m.Base, m.Unit, m.BaseRuns), format(m.Head, m.Unit, m.HeadRuns), delta, m.BaseRuns, m.HeadRuns)
	}
}

// PrintRecorded writes the medians of a recording's one measured side
// (head): there is no other side to put them against.
func PrintRecorded(w io.Writer, medians []report.Median) {
	fmt.Fprintf(w, "%-12s %18s   %s\n", "metric", "median", "valid runs")
	for _, m := range medians {
		fmt.Fprintf(w, "%-12s %18s   %d\n", m.Name, format(m.Head, m.Unit, m.HeadRuns), m.HeadRuns)
	}
}

// format shows a median with its unit, or "-" when no valid run has it.
func format(v float64, unit string, runs int) string {
	switch {
	case runs == 0:
		return "-"
	case unit == "ratio":
		return fmt.Sprintf("%.3f%%", 100*v)
	case v >= 1000:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		// Three significant digits, so small figures like GC cycles per
		// request (0.0213) do not print as 0.000.
		return fmt.Sprintf("%.3g %s", v, unit)
	}
}
