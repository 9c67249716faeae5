package main

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/benchtable"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// printOutcome ends gate, run and compare: medians, the paired statistics
// and the verdict.
func printOutcome(stdout io.Writer, rep *report.Report, out string) {
	if rep.Recording() {
		printRecorded(stdout, rep, out)
		return
	}
	if len(rep.Benchstat) > 0 {
		fmt.Fprintln(stdout, "\nbenchstat (unpaired: medians ± 95% interval, Mann–Whitney U test):")
		benchtable.Print(stdout, rep.Benchstat)
	} else {
		fmt.Fprintln(stdout)
		results.PrintComparison(stdout, rep.Summary)
	}
	if len(rep.Metrics) > 0 {
		fmt.Fprintf(stdout, "\npaired comparison over valid pairs (Wilcoxon signed-rank, Hodges–Lehmann; alpha %g, Holm across gating metrics):\n", rep.Config.Gate.Alpha)
		verdict.PrintMetrics(stdout, rep.Metrics)
	}
	if note := render.LatencyNote(rep); note != "" {
		fmt.Fprintln(stdout, note)
	}
	if len(rep.Functions) > 0 {
		fmt.Fprintln(stdout, "\nlargest per-request changes by function beyond sampling noise (head − base, flat):")
		attribution.Print(stdout, rep.Functions, 3)
	}
	printHints(stdout, rep.Hints)
	if method := render.Method(rep); method != "" {
		fmt.Fprintf(stdout, "\n%s", method)
	}
	fmt.Fprintf(stdout, "\nverdict: %s — %s\nresults: %s (seed %d)\n", rep.Verdict, rep.Reason, out, rep.Seed)
}

// printRecorded ends a recording: the medians of the measured tree and the
// verdict (nothing was compared, so there is no seed to replay).
func printRecorded(stdout io.Writer, rep *report.Report, out string) {
	fmt.Fprintf(stdout, "\nmedians of %s over its valid runs:\n", rep.Label)
	results.PrintRecorded(stdout, rep.Summary)
	printHints(stdout, rep.Hints)
	fmt.Fprintf(stdout, "\nverdict: %s — %s\nresults: %s\n", rep.Verdict, rep.Reason, out)
}

func printHints(stdout io.Writer, hints []report.Hint) {
	for i, h := range hints {
		if i == 0 {
			fmt.Fprintln(stdout, "\nhints:")
		}
		fmt.Fprintf(stdout, "  [%s] %s\n      evidence: %s\n", h.Rule, h.Message, h.Evidence)
	}
}

// printError prints each perfgate.yml problem on its own line (file:line:
// field: ...), and any other error as one message.
func printError(w io.Writer, err error) {
	problems := config.Errors(err)
	if len(problems) == 0 {
		fmt.Fprintf(w, "perfgate: %v\n", err)
		return
	}
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
}
