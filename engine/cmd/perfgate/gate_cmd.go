package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/gate"
)

func runGate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := gate.Options{Stdout: stdout, Stderr: stderr, Command: append([]string{"perfgate", "gate"}, args...)}
	fs.StringVar(&o.ConfigPath, "config", "perfgate.yml", "perfgate.yml of the service")
	fs.StringVar(&o.Base, "base", "", "base: a directory, or a git ref of the repository at --head")
	fs.StringVar(&o.Head, "head", ".", "head: the directory of the pull request's checkout")
	fs.StringVar(&o.Out, "out", "results", "results directory")
	fs.StringVar(&o.Target, "target", "", "where the service runs, overriding the config's target: "+strings.Join(config.Targets, ", "))
	seed := fs.String("seed", "", "replay the run order of an earlier gate (its report.json seed)")
	if err := fs.Parse(args); err != nil {
		return gate.ExitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate gate: unexpected argument %q\n", fs.Arg(0))
		return gate.ExitConfig
	}
	if o.Target != "" && !slices.Contains(config.Targets, o.Target) {
		fmt.Fprintf(stderr, "perfgate gate: --target %q is not a target; use one of %s\n", o.Target, strings.Join(config.Targets, ", "))
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
