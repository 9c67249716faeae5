package render

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Terminal writes the plain-text summary that ends perfgate gate, run and
// compare: the benchstat table (or, without one, the medians), the paired
// statistics, the largest function changes, the hints, how the gate
// measured and the verdict. out is the results directory it names.
func Terminal(w io.Writer, rep *report.Report, out string) {
	if rep.Recording() {
		terminalRecording(w, rep, out)
		return
	}
	if len(rep.Benchstat) > 0 {
		fmt.Fprintln(w, "\nbenchstat (unpaired: medians ± 95% interval, Mann–Whitney U test):")
		printBenchstat(w, rep.Benchstat)
	} else {
		fmt.Fprintln(w)
		printMedians(w, rep.Summary)
	}
	if len(rep.Metrics) > 0 {
		fmt.Fprintf(w, "\npaired comparison over valid pairs, errors and failures over every measured pair (Wilcoxon signed-rank, sign test for failures, Hodges–Lehmann; alpha %g, Holm across gating metrics):\n", rep.Config.Gate.Alpha)
		printMetrics(w, rep.Metrics)
		fmt.Fprintln(w, pNote)
	}
	if note := LatencyNote(rep); note != "" {
		fmt.Fprintln(w, note)
	}
	printEndpoints(w, rep.Endpoints)
	if len(rep.Functions) > 0 {
		fmt.Fprintln(w, "\nlargest per-request changes by function beyond noise (head − base, own cost):")
		printFunctions(w, rep.Functions, 3)
	}
	printHints(w, rep.Hints)
	if method := Method(rep); method != "" {
		fmt.Fprintf(w, "\n%s", method)
	}
	fmt.Fprintf(w, "\nverdict: %s — %s\nresults: %s (seed %d)\n", rep.Verdict, rep.Reason, out, rep.Seed)
}

// terminalRecording ends a recording: the medians of the measured tree
// and the verdict (nothing was compared, so there is no seed to replay).
func terminalRecording(w io.Writer, rep *report.Report, out string) {
	fmt.Fprintf(w, "\nmedians of %s over its valid runs:\n", rep.Label)
	printRecorded(w, rep.Summary)
	printPaired(w, rep)
	printHints(w, rep.Hints)
	fmt.Fprintf(w, "\nverdict: %s — %s\nresults: %s\n", rep.Verdict, rep.Reason, out)
}

func printHints(w io.Writer, hints []report.Hint) {
	for i, h := range hints {
		if i == 0 {
			fmt.Fprintln(w, "\nhints:")
		}
		fmt.Fprintf(w, "  [%s] %s\n      evidence: %s\n", h.Rule, h.Message, h.Evidence)
	}
}
