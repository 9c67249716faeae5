// Command perfgate gates a pull request on the performance of a Go HTTP
// service: it builds base and head, measures both under the same limits and
// load, and records everything in a results directory.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/benchtable"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/gate"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

const usage = `perfgate gates pull requests on the performance of Go HTTP services.

Usage:
  perfgate gate --config perfgate.yml --base <dir|git-ref> --head <dir> --out results/ [--seed N]
  perfgate compare --out results/ [--config perfgate.yml]
  perfgate report --in results/report.json [--format md|html|json]
  perfgate config check perfgate.yml

Exit codes: 0 pass, 1 regression, 2 usage or configuration error,
3 build or infrastructure error, 4 invalid measurement.
`

func main() {
	// A first SIGINT/SIGTERM cancels the experiment, which stops the
	// service, removes its cgroup and writes the results; a second one
	// kills perfgate at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return gate.ExitConfig
	}
	switch args[0] {
	case "gate":
		return runGate(ctx, args[1:], stdout, stderr)
	case "compare":
		return runCompare(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "config":
		if len(args) != 3 || args[1] != "check" {
			fmt.Fprint(stderr, "usage: perfgate config check perfgate.yml\n")
			return gate.ExitConfig
		}
		return configCheck(args[2], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "perfgate: unknown command %q\n\n%s", args[0], usage)
	return gate.ExitConfig
}

func configCheck(path string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path)
	if err != nil {
		printError(stderr, err)
		return gate.ExitConfig
	}
	fmt.Fprintf(stdout, "%s: valid (%d pairs of %s at %g req/s, %d requests in the mix, target %s)\n",
		path, cfg.Pairs, cfg.Load.Duration, cfg.Load.Rate, len(cfg.Load.Requests), cfg.Target)
	return 0
}

func runGate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gate.Options{Stdout: stdout, Stderr: stderr, Command: append([]string{"perfgate", "gate"}, args...)}
	fs.StringVar(&o.ConfigPath, "config", "perfgate.yml", "perfgate.yml of the service")
	fs.StringVar(&o.Base, "base", "", "base: a directory, or a git ref of the repository at --head")
	fs.StringVar(&o.Head, "head", ".", "head: the directory of the pull request's checkout")
	fs.StringVar(&o.Out, "out", "results", "results directory")
	seed := fs.String("seed", "", "replay the run order of an earlier gate (its report.json seed)")
	if err := fs.Parse(args); err != nil {
		return gate.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate gate: unexpected argument %q\n", fs.Arg(0))
		return gate.ExitConfig
	}
	if o.Base == "" {
		fmt.Fprintln(stderr, "perfgate gate: --base is required: a directory, or a git ref such as origin/main")
		return gate.ExitConfig
	}
	if *seed != "" {
		n, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "perfgate gate: --seed %q is not an unsigned integer; copy it from report.json's seed\n", *seed)
			return gate.ExitConfig
		}
		o.Seed = &n
	}
	rep, err := gate.Run(ctx, o)
	if err != nil {
		printError(stderr, err)
	}
	if rep == nil {
		return gate.ExitCode("", err)
	}
	printOutcome(stdout, rep, o.Out)
	return gate.ExitCode(rep.Verdict, err)
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gate.CompareOptions{Stdout: stdout, Stderr: stderr}
	fs.StringVar(&o.Out, "out", "results", "results directory of a gate")
	fs.StringVar(&o.ConfigPath, "config", "", "perfgate.yml whose gate thresholds replace the recorded ones")
	if err := fs.Parse(args); err != nil {
		return gate.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate compare: unexpected argument %q\n", fs.Arg(0))
		return gate.ExitConfig
	}
	rep, err := gate.Compare(o)
	if err != nil {
		printError(stderr, err)
	}
	if rep == nil {
		return gate.ExitCode("", err)
	}
	printOutcome(stdout, rep, o.Out)
	return gate.ExitCode(rep.Verdict, err)
}

// printOutcome ends gate and compare: medians, the paired statistics and
// the verdict.
func printOutcome(stdout io.Writer, rep *report.Report, out string) {
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
	if len(rep.Functions) > 0 {
		fmt.Fprintln(stdout, "\nlargest per-request changes by function beyond sampling noise (head − base, flat):")
		attribution.Print(stdout, rep.Functions, 3)
	}
	for i, h := range rep.Hints {
		if i == 0 {
			fmt.Fprintln(stdout, "\nhints:")
		}
		fmt.Fprintf(stdout, "  [%s] %s\n      evidence: %s\n", h.Rule, h.Message, h.Evidence)
	}
	fmt.Fprintf(stdout, "\nverdict: %s — %s\nresults: %s (seed %d)\n", rep.Verdict, rep.Reason, out, rep.Seed)
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

// runReport re-renders a report.json, which may come from an untrusted
// copy (the Action's fork-safe mode): it is checked before it is rendered.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "results/report.json", "report.json to render")
	format := fs.String("format", "md", "md (the PR comment), html (the self-contained page) or json (the checked report)")
	if err := fs.Parse(args); err != nil {
		return gate.ExitConfig
	}
	if *format != "md" && *format != "html" && *format != "json" {
		fmt.Fprintf(stderr, "perfgate report: --format %q is not supported; use md, html or json\n", *format)
		return gate.ExitConfig
	}
	f, err := os.Open(*in)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate report: %v\n", err)
		return gate.ExitConfig
	}
	defer f.Close()
	rep, err := render.ReadReport(f)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate report: %s: %v\n", *in, err)
		return gate.ExitConfig
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "perfgate report: %v\n", err)
			return gate.ExitInfra
		}
		return 0
	}
	if *format == "html" {
		page, err := render.HTML(rep)
		if err != nil {
			fmt.Fprintf(stderr, "perfgate report: %v\n", err)
			return gate.ExitInfra
		}
		fmt.Fprint(stdout, page)
		return 0
	}
	fmt.Fprint(stdout, render.Markdown(rep))
	return 0
}
