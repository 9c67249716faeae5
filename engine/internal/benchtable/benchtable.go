// Package benchtable compares the sides the way benchstat does (medians with
// 95% intervals, Mann–Whitney U test at 0.05) with golang.org/x/perf's
// benchmath, so users see the table they know beside perfgate's paired
// verdict. It does not shell out: the benchstat command exits 0 even when
// its input is broken.
package benchtable

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
)

// confidence is benchstat's default for summaries.
const confidence = 0.95

// figure is one row of the table.
type figure struct {
	name string
	get  func(report.Figures) (float64, bool)
}

var figures = []figure{
	{"cpu-µs/req", func(f report.Figures) (float64, bool) { return results.Always(f.CPUMicrosPerRequest) }},
	{"allocs/req", func(f report.Figures) (float64, bool) { return results.Optional(f.AllocsPerRequest) }},
	{"B/req", func(f report.Figures) (float64, bool) { return results.Optional(f.BytesPerRequest) }},
	{"gc/req", func(f report.Figures) (float64, bool) { return results.Optional(f.GCCyclesPerRequest) }},
	{"p50-ms", func(f report.Figures) (float64, bool) { return results.Always(f.LatencyP50Ms) }},
	{"p90-ms", func(f report.Figures) (float64, bool) { return results.Always(f.LatencyP90Ms) }},
	{"p99-ms", func(f report.Figures) (float64, bool) { return results.Always(f.LatencyP99Ms) }},
	{"req/s", func(f report.Figures) (float64, bool) { return results.Always(f.Throughput) }},
	{"errors", func(f report.Figures) (float64, bool) { return results.Always(f.ErrorRate) }},
}

// Rows compares every figure over the valid runs of each side.
func Rows(runs []report.Run) []report.BenchRow {
	var rows []report.BenchRow
	for _, fig := range figures {
		base, head := results.SideValues(runs, "base", fig.get), results.SideValues(runs, "head", fig.get)
		if len(base) == 0 || len(head) == 0 {
			continue
		}
		sb, sh := benchmath.NewSample(base, &benchmath.DefaultThresholds), benchmath.NewSample(head, &benchmath.DefaultThresholds)
		a := benchmath.AssumeNothing
		baseSum, headSum := a.Summary(sb, confidence), a.Summary(sh, confidence)
		cmp := a.Compare(sb, sh)
		row := report.BenchRow{
			Metric: fig.name,
			Base:   baseSum.Center, BaseRange: baseSum.PctRangeString(),
			Head: headSum.Center, HeadRange: headSum.PctRangeString(),
			Delta: cmp.FormatDelta(baseSum.Center, headSum.Center), P: cmp.P, Note: cmp.String(),
		}
		for _, w := range append(append(baseSum.Warnings, headSum.Warnings...), cmp.Warnings...) {
			row.Warnings = append(row.Warnings, w.Error())
		}
		rows = append(rows, row)
	}
	return rows
}

// Print writes the rows in benchstat's layout.
func Print(w io.Writer, rows []report.BenchRow) {
	fmt.Fprintf(w, "%-11s %20s %20s %s\n", "", "base", "head", "vs base")
	var warnings []string
	for _, r := range rows {
		fmt.Fprintf(w, "%-11s %12s ± %-5s %12s ± %-5s %s (%s)\n", r.Metric, number(r.Base), r.BaseRange, number(r.Head), r.HeadRange, r.Delta, r.Note)
		for _, warning := range r.Warnings {
			warnings = append(warnings, r.Metric+": "+warning)
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w, strings.Join(dedupe(warnings), "\n"))
	}
}

// number shows four significant digits without switching to exponents for
// the large values (bytes per request) the table usually holds.
func number(v float64) string {
	if v >= 1000 || v <= -1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

func dedupe(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}
