package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/gate"
)

// runRecord is `perfgate run`: one tree measured alone, for the nightly
// record on main.
func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gate.RecordOptions{Stdout: stdout, Stderr: stderr, Command: append([]string{"perfgate", "run"}, args...)}
	fs.StringVar(&o.ConfigPath, "config", "perfgate.yml", "perfgate.yml of the service")
	fs.StringVar(&o.Src, "src", ".", "the directory of the checkout to measure")
	fs.StringVar(&o.Label, "label", "", "what is measured, shown in the report: a branch like main or a short commit SHA")
	fs.StringVar(&o.Out, "out", "results", "results directory")
	fs.StringVar(&o.Target, "target", "", "where the service runs, overriding the config's target: "+strings.Join(config.Targets, ", "))
	if err := fs.Parse(args); err != nil {
		return gate.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate run: unexpected argument %q\n", fs.Arg(0))
		return gate.ExitConfig
	}
	if o.Target != "" && !slices.Contains(config.Targets, o.Target) {
		fmt.Fprintf(stderr, "perfgate run: --target %q is not a target; use one of %s\n", o.Target, strings.Join(config.Targets, ", "))
		return gate.ExitConfig
	}
	if err := gate.CheckLabel(o.Label); err != nil {
		fmt.Fprintf(stderr, "perfgate run: %v\n", err)
		return gate.ExitConfig
	}
	rep, err := gate.Record(ctx, o)
	if err != nil {
		printError(stderr, err)
	}
	if rep == nil {
		return gate.ExitCode("", err)
	}
	printOutcome(stdout, rep, o.Out)
	return gate.ExitCode(rep.Verdict, err)
}
