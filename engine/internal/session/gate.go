// Package session carries out one perfgate command that produces a results
// directory, from configuration to report.json and its renderings:
// Gate (`perfgate gate`: both builds, the paired experiment on the
// target, the verdict), Run (`perfgate run`: the same for one tree,
// recorded as report mode "record", without a comparison) and Recompute
// (`perfgate compare`: the statistics and verdict again from the runs a
// results directory holds). The invocation type is the lifecycle they
// share (invocation.go).
package session

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// GateOptions are the flags of `perfgate gate`.
type GateOptions struct {
	ConfigPath string
	// Base is a git revision of head's repository; BaseDir a directory.
	// Exactly one is set: a revision is never looked up as a directory.
	Base    string
	BaseDir string
	Head    string // directory
	Out     string
	// Target overrides the config's target when set (the Action's target input).
	Target string
	// Targets are the targets the service may run on (the command's).
	Targets Targets
	// Seed replays a run order; nil picks a fresh one.
	Seed *uint64
	// HistoryDir is main's nightly history (perfgate run --history), shown
	// beside the verdict; "" for none.
	HistoryDir string
	// BaseBinary and HeadBinary are prebuilt binaries measured instead of
	// builds of the trees: both or neither (prebuilt.go).
	BaseBinary string
	HeadBinary string
	Command    []string
	// LogFormat is LogPlain (the default) or LogGitHub.
	LogFormat string
	// FailOn is which verdicts fail the check (report.FailOnValues), for
	// the report to say; "" says nothing.
	FailOn string
	Stdout io.Writer
	Stderr io.Writer
}

// Gate (`perfgate gate`) performs the gate and returns the report it wrote (nil when nothing
// could be written) and the error that ended it, if any.
func Gate(ctx context.Context, o GateOptions) (*report.Report, error) {
	cfg, err := loadConfig(o.ConfigPath, o.Target, o.Targets)
	if err != nil {
		return nil, err
	}
	if err := verdict.CheckPlan(o.ConfigPath, cfg); err != nil {
		return nil, &ConfigError{Err: err}
	}
	if err := checkPrebuilt(cfg, map[string]string{"--base-binary": o.BaseBinary, "--head-binary": o.HeadBinary}, true); err != nil {
		return nil, err
	}
	if info, err := os.Stat(o.Head); err != nil || !info.IsDir() {
		return nil, optionError(OptionHead, o.Head, NotADirectory)
	}
	if err := prepareOut(o.Out); err != nil {
		return nil, err
	}
	g := newInvocation(report.ModeGate, cfg, o.Out, o.Command, o.Stdout, o.Stderr)
	g.rep.FailOn = o.FailOn
	g.logFormat = o.LogFormat
	g.targets = o.Targets
	g.readMainHistory(o.HistoryDir, o.ConfigPath, o.Head)
	g.rep.Seed = rand.Uint64()
	if o.Seed != nil {
		g.rep.Seed = *o.Seed
	}
	return g.finish(g.gate(ctx, o))
}

// gate builds base and head and measures them in pairs.
func (g *invocation) gate(ctx context.Context, o GateOptions) error {
	if err := g.begin(ctx); err != nil {
		return err
	}
	base, err := resolveBase(ctx, o)
	if err != nil {
		return &ConfigError{Err: err}
	}
	defer func() {
		if err := base.Cleanup(); err != nil {
			g.warn(fmt.Sprintf("could not remove the base worktree: %v", err))
		}
	}()
	if err := g.gateFromBase(ctx, base, o); err != nil {
		return err
	}
	if err := g.rootKeysFromBase(ctx, base, o); err != nil {
		return err
	}
	binaries, err := g.build(ctx, []tree{
		{side: experiment.Base, dir: base.Dir, binary: &g.rep.Build.Base, prebuilt: o.BaseBinary, prebuiltFlag: "--base-binary"},
		{side: experiment.Head, dir: o.Head, binary: &g.rep.Build.Head, prebuilt: o.HeadBinary, prebuiltFlag: "--head-binary"},
	})
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(binaries[experiment.Base]))
	return g.measure(ctx, binaries, "", o.Head)
}

// resolveBase is --base (a revision, checked out as a worktree) or
// --base-dir (a directory as it is).
func resolveBase(ctx context.Context, o GateOptions) (*build.Base, error) {
	if o.BaseDir != "" {
		return build.BaseDir(o.BaseDir)
	}
	return build.ResolveBase(ctx, o.Base, o.Head)
}
