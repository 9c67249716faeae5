package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// PairWithLast is --pair-with's value for the newest valid recording in
// the history: each night measured against the night before (Go's perf
// dashboard calls it perf_vs_parent), so the machine's drift between
// nights cancels, as it does between a pull request's base and head.
const PairWithLast = "last"

// pairedBase is the worktree of the revision a recording is paired with,
// or nil when it is measured alone: no --pair-with, or --pair-with last
// with no usable earlier recording (said in a warning). A revision named
// explicitly that cannot be checked out is an error; the newest entry of
// a history that this checkout cannot reach (a shallow clone, a
// force-pushed branch) is a warning, and the night is recorded alone.
func (g *invocation) pairedBase(ctx context.Context, o RunOptions) (*build.Base, error) {
	rev := o.PairWith
	if rev == "" {
		return nil, nil
	}
	if rev == PairWithLast {
		if o.History.Dir == "" {
			return nil, errors.New("--pair-with last reads the newest recording from the history; pass --history DIR too, or a commit")
		}
		last, err := lastRecorded(o)
		if err != nil {
			return nil, err
		}
		if last == "" {
			g.warn("--pair-with last: the history has no valid recording of this config yet, so tonight is recorded alone; the next night pairs with it")
			return nil, nil
		}
		base, err := build.ResolvePair(ctx, last, o.Src)
		if err != nil {
			g.warn(fmt.Sprintf("--pair-with last: the newest recording's commit %s cannot be checked out here (%v), so tonight is recorded alone; fetch the whole history (actions/checkout with fetch-depth: 0) to pair nights", last, err))
			return nil, nil
		}
		return base, nil
	}
	return build.ResolvePair(ctx, rev, o.Src)
}

// lastRecorded is the commit of the newest valid entry in the config's
// history, or "".
func lastRecorded(o RunOptions) (string, error) {
	file, err := history.Read(o.History.Dir, history.ConfigNameIn(o.ConfigPath, o.Src))
	if err != nil {
		return "", err
	}
	for i := len(file.Entries) - 1; i >= 0; i-- {
		if e := file.Entries[i]; e.Verdict == report.Pass {
			return e.Commit, nil
		}
	}
	return "", nil
}
