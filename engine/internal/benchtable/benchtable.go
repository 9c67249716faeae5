// Package benchtable compares the sides the way benchstat does (medians with
// 95% intervals, Mann–Whitney U test at 0.05) with golang.org/x/perf's
// benchmath, so users see the table they know beside perfgate's paired
// verdict. It does not shell out: the benchstat command exits 0 even when
// its input is broken.
package benchtable

import (
	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// confidence is benchstat's default for summaries.
const confidence = 0.95

// Rows compares, over the valid runs of each side, every catalog metric
// that has a benchstat unit, in that unit: the rows benchstat shows for
// bench/base.txt and bench/head.txt.
func Rows(runs []report.Run) []report.BenchRow {
	var rows []report.BenchRow
	for _, m := range metric.Catalog {
		if m.Bench == nil {
			continue
		}
		base, head := inBenchUnit(m, metric.Base, runs), inBenchUnit(m, metric.Head, runs)
		if len(base) == 0 || len(head) == 0 {
			continue
		}
		sb, sh := benchmath.NewSample(base, &benchmath.DefaultThresholds), benchmath.NewSample(head, &benchmath.DefaultThresholds)
		a := benchmath.AssumeNothing
		baseSum, headSum := a.Summary(sb, confidence), a.Summary(sh, confidence)
		cmp := a.Compare(sb, sh)
		row := report.BenchRow{
			Metric: m.Bench.Unit,
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

// inBenchUnit is a side's values of m as the bench files hold them.
func inBenchUnit(m *metric.Metric, side metric.Side, runs []report.Run) []float64 {
	vs := m.Values(runs, side)
	for i := range vs {
		vs[i] *= m.Bench.Factor
	}
	return vs
}
