package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// printBenchstat writes the benchstat rows in benchstat's own layout, so
// the table reads as the one users know, then each distinct warning once.
func printBenchstat(w io.Writer, rows []report.BenchRow) {
	fmt.Fprintf(w, "%-11s %20s %20s %s\n", "", "base", "head", "vs base")
	var warnings []string
	for _, r := range rows {
		fmt.Fprintf(w, "%-11s %12s ± %-5s %12s ± %-5s %s (%s)\n", r.Metric, metric.Number(r.Base), r.BaseRange, metric.Number(r.Head), r.HeadRange, r.Delta, r.Note)
		for _, warning := range r.Warnings {
			warnings = append(warnings, r.Metric+": "+warning)
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w, strings.Join(dedupe(warnings), "\n"))
	}
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
