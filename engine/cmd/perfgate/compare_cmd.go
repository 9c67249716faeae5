package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/gate"
)

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
