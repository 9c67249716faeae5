package main

import (
	"flag"
	"io"

	"github.com/perfgate/perfgate/engine/internal/session"
)

// compareCommand is `perfgate compare`: the statistics, verdict and
// renderings of a results directory again, from the runs it holds.
func compareCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := session.RecomputeOptions{Stdout: stdout, Stderr: stderr}
	fs.StringVar(&o.Out, "out", "results", "results directory of a gate")
	fs.StringVar(&o.ConfigPath, "config", "", "perfgate.yml whose gate thresholds replace the recorded ones")
	if !parseFlags(fs, args, stderr) {
		return exitConfig
	}
	rep, err := session.Recompute(o)
	return finish(stdout, stderr, rep, err, o.Out)
}
