package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// printMedians writes the short plain-text comparison of medians that
// ends a gate without a benchstat table.
func printMedians(w io.Writer, medians []report.Median) {
	tw := columns(w)
	fmt.Fprintf(tw, "%-12s\t  %s\t  %s\t  %s\t   %s\n", "metric", "base", "head", "delta", "valid runs (base/head)")
	for _, md := range medians {
		m := metric.OfMedian(md)
		delta := "~"
		if _, ok := m.Change(md.Base, md.Head); ok && md.BaseRuns > 0 && md.HeadRuns > 0 {
			delta = m.FormatChange(md.Delta)
		}
		fmt.Fprintf(tw, "%-12s\t  %s\t  %s\t  %s\t   %d/%d\n", md.Name, medianOf(m, md.Base, md.BaseRuns), medianOf(m, md.Head, md.HeadRuns), delta, md.BaseRuns, md.HeadRuns)
	}
	tw.Flush()
}

// printRecorded writes the medians of a recording's one measured side
// (head): there is no other side to put them against.
func printRecorded(w io.Writer, medians []report.Median) {
	tw := columns(w)
	fmt.Fprintf(tw, "%-12s\t  %s\t   %s\n", "metric", "median", "valid runs")
	for _, md := range medians {
		fmt.Fprintf(tw, "%-12s\t  %s\t   %d\n", md.Name, medianOf(metric.OfMedian(md), md.Head, md.HeadRuns), md.HeadRuns)
	}
	tw.Flush()
}

// columns aligns figures to the right, whatever their units' lengths; the
// metric names are padded to one width so they read left-aligned, and
// each figure starts with its own spacing.
func columns(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
}

// medianOf shows a median, or "-" when no valid run has it.
func medianOf(m *metric.Metric, v float64, runs int) string {
	if runs == 0 {
		return "-"
	}
	return m.Format(v)
}
