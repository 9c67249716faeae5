package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/session"
)

// gateCommand is `perfgate gate`: base against head, and the verdict.
func gateCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := session.GateOptions{Targets: targets, Stdout: stdout, Stderr: stderr, Command: append([]string{"perfgate", "gate"}, args...)}
	fs.StringVar(&o.ConfigPath, "config", "perfgate.yml", "perfgate.yml of the service")
	fs.StringVar(&o.Base, "base", "", "base: a git revision (commit, branch or tag) of the repository at --head")
	fs.StringVar(&o.BaseDir, "base-dir", "", "base: a directory holding the base's source, instead of --base")
	fs.StringVar(&o.Head, "head", ".", "head: the directory of the pull request's checkout")
	fs.StringVar(&o.Out, "out", "results", "results directory")
	fs.StringVar(&o.HistoryDir, "history", "", "main's nightly history (perfgate run --history): the comment shows where main stands")
	fs.StringVar(&o.BaseBinary, "base-binary", "", "measure this prebuilt binary as the base instead of building it (with --head-binary; needs layout: build)")
	fs.StringVar(&o.HeadBinary, "head-binary", "", "measure this prebuilt binary as the head instead of building it (with --base-binary; needs layout: build)")
	targetFlag(fs, &o.Target)
	logFormatFlag(fs, &o.LogFormat)
	fs.StringVar(&o.FailOn, "fail-on", report.FailOnRegression, "which verdicts fail the check, for the report to say so: "+strings.Join(report.FailOnValues, ", ")+" (the exit code reports the verdict either way)")
	seed := fs.String("seed", "", "replay the run order of an earlier gate (its report.json seed)")
	if !parseFlags(fs, args, stderr) || !checkTarget("gate", o.Target, stderr) || !checkLogFormat("gate", o.LogFormat, stderr) {
		return exitConfig
	}
	if !slices.Contains(report.FailOnValues, o.FailOn) {
		fmt.Fprintf(stderr, "perfgate gate: --fail-on %q is not one of %s\n", o.FailOn, strings.Join(report.FailOnValues, ", "))
		return exitConfig
	}
	if (o.Base == "") == (o.BaseDir == "") {
		fmt.Fprintf(stderr, "perfgate gate: give exactly one of --base (a git revision such as origin/main; got %q) and --base-dir (a directory; got %q)\n", o.Base, o.BaseDir)
		return exitConfig
	}
	if (o.BaseBinary == "") != (o.HeadBinary == "") {
		fmt.Fprintf(stderr, "perfgate gate: give both --base-binary and --head-binary (got %q and %q), or neither: a gate compares two binaries built the same way\n", o.BaseBinary, o.HeadBinary)
		return exitConfig
	}
	if *seed != "" {
		n, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "perfgate gate: --seed %q is not an unsigned integer; copy it from report.json's seed\n", *seed)
			return exitConfig
		}
		o.Seed = &n
	}
	rep, err := session.Gate(ctx, o)
	return finish(stdout, stderr, rep, err, o.Out)
}
