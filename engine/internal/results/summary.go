package results

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Medians compares the sides' medians of every catalog metric over their
// valid runs. Delta is on the metric's scale: relative for most, head −
// base for absolute ones (a rate, what a leak retains), whose base is
// often 0.
func Medians(runs []report.Run) []report.Median {
	var out []report.Median
	for _, m := range metric.Catalog {
		base, head := m.Values(runs, metric.Base), m.Values(runs, metric.Head)
		if len(base) == 0 && len(head) == 0 {
			continue
		}
		md := report.Median{Name: m.Name, Unit: m.Unit, Base: stats.Median(base), Head: stats.Median(head), BaseRuns: len(base), HeadRuns: len(head)}
		if len(base) > 0 && len(head) > 0 {
			md.Delta, _ = m.Change(md.Base, md.Head)
		}
		out = append(out, md)
	}
	return out
}

// PrintComparison writes the short plain-text comparison of medians that
// ends a gate.
func PrintComparison(w io.Writer, medians []report.Median) {
	tw := columns(w)
	fmt.Fprintf(tw, "%-12s\t  %s\t  %s\t  %s\t   %s\n", "metric", "base", "head", "delta", "valid runs (base/head)")
	for _, md := range medians {
		m := metric.OfMedian(md)
		delta := "~"
		if _, ok := m.Change(md.Base, md.Head); ok && md.BaseRuns > 0 && md.HeadRuns > 0 {
			delta = m.FormatChange(md.Delta)
		}
		fmt.Fprintf(tw, "%-12s\t  %s\t  %s\t  %s\t   %d/%d\n", md.Name, format(m, md.Base, md.BaseRuns), format(m, md.Head, md.HeadRuns), delta, md.BaseRuns, md.HeadRuns)
	}
	tw.Flush()
}

// PrintRecorded writes the medians of a recording's one measured side
// (head): there is no other side to put them against.
func PrintRecorded(w io.Writer, medians []report.Median) {
	tw := columns(w)
	fmt.Fprintf(tw, "%-12s\t  %s\t   %s\n", "metric", "median", "valid runs")
	for _, md := range medians {
		fmt.Fprintf(tw, "%-12s\t  %s\t   %d\n", md.Name, format(metric.OfMedian(md), md.Head, md.HeadRuns), md.HeadRuns)
	}
	tw.Flush()
}

// columns aligns figures to the right, whatever their units' lengths; the
// metric names are padded to one width so they read left-aligned, and
// each figure starts with its own spacing.
func columns(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
}

// format shows a median, or "-" when no valid run has it.
func format(m *metric.Metric, v float64, runs int) string {
	if runs == 0 {
		return "-"
	}
	return m.Format(v)
}
