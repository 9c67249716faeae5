package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/session"
)

// runCommand is `perfgate run`: one tree measured alone, for the nightly
// record on main.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := session.RunOptions{Targets: targets, Stdout: stdout, Stderr: stderr, Command: append([]string{"perfgate", "run"}, args...)}
	fs.StringVar(&o.ConfigPath, "config", "perfgate.yml", "perfgate.yml of the service")
	fs.StringVar(&o.Src, "src", ".", "the directory of the checkout to measure")
	fs.StringVar(&o.Binary, "binary", "", "record this prebuilt binary instead of building --src (not with --pair-with)")
	fs.StringVar(&o.Label, "label", "", "what is measured, shown in the report: a branch like main or a short commit SHA")
	fs.StringVar(&o.Out, "out", "results", "results directory")
	targetFlag(fs, &o.Target)
	logFormatFlag(fs, &o.LogFormat)
	fs.StringVar(&o.History.Dir, "history", "", "append the recording to the history in this directory (perfgate trend reads it); results/history-entry.json is written either way")
	fs.StringVar(&o.History.Meta.Commit, "commit", "", "the full commit id measured (40 or 64 hex digits), when --src is not a git checkout")
	fs.StringVar(&o.PairWith, "pair-with", "", "measure as a duet against this commit, branch or tag (base), keeping the paired estimates in the history entry; \"last\" pairs with the newest valid recording in --history (each night against the night before)")
	artifact := artifactFlags(fs)
	if !parseFlags(fs, args, stderr) || !checkTarget("run", o.Target, stderr) || !checkLogFormat("run", o.LogFormat, stderr) {
		return exitConfig
	}
	a, err := artifact.check()
	if err != nil {
		fmt.Fprintf(stderr, "perfgate run: %v\n", err)
		return exitConfig
	}
	o.History.Meta.Artifact = a
	o.History.Meta.RunnerImage = runnerImage()
	if c := o.History.Meta.Commit; c != "" && !history.IsFullCommit(c) {
		fmt.Fprintf(stderr, "perfgate run: --commit %q is not a full commit id; pass all 40 (or 64) hex digits, e.g. $(git rev-parse HEAD)\n", c)
		return exitConfig
	}
	if err := session.CheckLabel(o.Label); err != nil {
		fmt.Fprintf(stderr, "perfgate run: %s\n", message(err))
		return exitConfig
	}
	rep, err := session.Run(ctx, o)
	code := finish(stdout, stderr, rep, err, o.Out)
	if o.History.Dir != "" {
		giveBack(o.History.Dir, stderr)
	}
	return code
}
