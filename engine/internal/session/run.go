package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// RunOptions are the flags of `perfgate run`, which measures one tree
// (the nightly job on main, the Action's record mode) to keep a trend and
// catch slow drift that no single pull request shows.
type RunOptions struct {
	ConfigPath string
	Src        string // directory of the tree to measure
	// Label names the recording in its report (a branch or a short SHA).
	Label string
	Out   string
	// Target overrides the config's target when set (the Action's target input).
	Target string
	// Targets are the targets the service may run on (the command's).
	Targets Targets
	History HistoryOptions
	// PairWith, when set, measures the tree as a duet against this
	// revision (base) instead of alone: a commit, branch or tag, or
	// PairWithLast for the newest valid entry of History.Dir. The report
	// keeps the paired estimates (report.Paired), and the history entry
	// with them; trend reads nights' changes from them.
	PairWith string
	// Binary is a prebuilt binary recorded instead of a build of Src
	// (prebuilt.go); not with PairWith, whose base is built.
	Binary  string
	Command []string
	// LogFormat is LogPlain (the default) or LogGitHub.
	LogFormat string
	Stdout    io.Writer
	Stderr    io.Writer
}

// CheckLabel says what is wrong with a label (an OptionError for
// OptionLabel), or nil when it is usable.
func CheckLabel(label string) error {
	if label == "" {
		return optionError(OptionLabel, label, Missing)
	}
	if !config.LabelPattern.MatchString(label) {
		return optionError(OptionLabel, label, NotALabel)
	}
	return nil
}

// Run (`perfgate run`) measures and records the tree at o.Src alone: the
// gate's build, target, experiment (config pairs runs, side head) and
// results steps, with a verdict that only says whether enough runs were
// valid. It returns the report it wrote (nil when nothing could be
// written) and the error that ended it, if any.
func Run(ctx context.Context, o RunOptions) (*report.Report, error) {
	if err := CheckLabel(o.Label); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(o.ConfigPath, o.Target, o.Targets)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(o.Src); err != nil || !info.IsDir() {
		return nil, optionError(OptionSrc, o.Src, NotADirectory)
	}
	if o.Binary != "" && o.PairWith != "" {
		return nil, configErrorf("--binary with --pair-with: the paired base is built from its revision, and a comparison needs both sides built the same way; record the binary alone, or let perfgate build --src")
	}
	if err := checkPrebuilt(cfg, map[string]string{"--binary": o.Binary}, false); err != nil {
		return nil, err
	}
	if err := prepareOut(o.Out); err != nil {
		return nil, err
	}
	g := newInvocation(report.ModeRecord, cfg, o.Out, o.Command, o.Stdout, o.Stderr)
	g.logFormat = o.LogFormat
	g.targets = o.Targets
	g.rep.Label = o.Label
	rep, err := g.finish(g.record(ctx, o))
	if rep != nil && len(rep.Runs) > 0 {
		if herr := keepHistory(rep, o); herr != nil {
			err = errors.Join(err, herr)
		}
	}
	return rep, err
}

// record builds the tree at o.Src as head and measures it alone, or as a
// duet against the revision o.PairWith names.
func (g *invocation) record(ctx context.Context, o RunOptions) error {
	if err := g.begin(ctx); err != nil {
		return err
	}
	pair, err := g.pairedBase(ctx, o)
	if err != nil {
		return &ConfigError{Err: err}
	}
	trees := []tree{{side: experiment.Head, dir: o.Src, binary: &g.rep.Build.Head, prebuilt: o.Binary, prebuiltFlag: "--binary"}}
	onlySide := experiment.Head
	if pair != nil {
		defer func() {
			if err := pair.Cleanup(); err != nil {
				g.warn(fmt.Sprintf("could not remove the worktree of %s: %v", pair.Commit, err))
			}
		}()
		g.rep.PairedWith = pair.Commit
		g.rep.Seed = rand.Uint64()
		if g.cfg.Pairs < verdict.MinPairedRounds {
			g.warn(fmt.Sprintf("pairs.min is %d: a paired night of fewer than %d rounds cannot reach the %.1f%% interval perfgate trend reads steps from, so this night's estimates are kept but show no step; set pairs.min to %d or more",
				g.cfg.Pairs, verdict.MinPairedRounds, 100*verdict.PairedLevel, verdict.MinPairedRounds))
		}
		trees = append([]tree{{side: experiment.Base, dir: pair.Dir, binary: &g.rep.Build.Base}}, trees...)
		onlySide = ""
	}
	binaries, err := g.build(ctx, trees)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(binaries[experiment.Head]))
	return g.measure(ctx, binaries, onlySide, o.Src)
}

// recordingVerdict is gate's verdict for a failed experiment, invalid
// when too few runs were valid (the gate's rule, counted in runs instead
// of pairs), and otherwise pass: a recording compares nothing, so it can
// neither regress nor improve.
func recordingVerdict(err error, runs []report.Run, pairs int, label string) (string, string) {
	if v, reason, failed := failureVerdict(err, runs); failed {
		return v, reason
	}
	valid := 0
	for _, r := range runs {
		if r.Valid {
			valid++
		}
	}
	// One side only: its name would add nothing to each reason.
	reasons := countReasons(runs, func(_ report.Run, reason string) string { return reason })
	if !enoughValid(valid, pairs) {
		return report.Invalid, fmt.Sprintf("invalid measurement: only %d of %d runs of %s are valid; %s", valid, pairs, label, reasons)
	}
	reason := fmt.Sprintf("recorded %d valid runs of %s", valid, label)
	if invalid := len(runs) - valid; invalid > 0 {
		reason += fmt.Sprintf(" (%d invalid: %s)", invalid, reasons)
	}
	return report.Pass, reason + "; nothing compared (mode record)"
}
