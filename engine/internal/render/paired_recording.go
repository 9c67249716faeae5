package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// pairedRows are a paired recording's estimates as (metric, change,
// interval) cells: what changed since the commit it was paired with.
func pairedRows(rep *report.Report) [][3]string {
	var rows [][3]string
	for _, p := range rep.Paired {
		rows = append(rows, [3]string{p.Name, change(p.Estimate), change(p.CI[0]) + " to " + change(p.CI[1])})
	}
	return rows
}

// change shows a night's change with two decimals: nights differ by
// tenths of a percent.
func change(v float64) string { return fmt.Sprintf("%+.2f%%", 100*v) }

// pairedLevel is the paired estimates' interval level, as a percentage.
func pairedLevel(rep *report.Report) string {
	level := 0.0
	for _, p := range rep.Paired {
		level = max(level, p.Level)
	}
	return fmt.Sprintf("%.4g%%", 100*level)
}

// pairedSection is the Markdown table of a paired recording's estimates.
func pairedSection(rep *report.Report) string {
	rows := pairedRows(rep)
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### Against %s, measured at the same time\n\n", Text(shortRevision(rep.PairedWith)))
	fmt.Fprintf(&b, "| metric | change | %s interval |\n|---|---:|---:|\n", pairedLevel(rep))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", UpperFirst(titleOfName(r[0])), r[1], r[2])
	}
	b.WriteString("\nNothing is decided here: `perfgate trend` reads these night to night.\n")
	return b.String()
}

// printPaired writes the paired estimates for the terminal.
func printPaired(w io.Writer, rep *report.Report) {
	rows := pairedRows(rep)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nagainst %s, measured at the same time (Hodges–Lehmann of the rounds' ratios, %s interval):\n", rep.PairedWith, pairedLevel(rep))
	tw := columns(w)
	fmt.Fprintf(tw, "%-12s\t  %s\t   %s\n", "metric", "change", "interval")
	for _, r := range rows {
		fmt.Fprintf(tw, "%-12s\t  %s\t   %s\n", r[0], r[1], r[2])
	}
	tw.Flush()
}

// shortRevision is a commit's first 12 characters.
func shortRevision(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
