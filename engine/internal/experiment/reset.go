package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/reset"
)

// resetLog is the file, in each run's directory, that holds the output of
// the service.reset that preceded the run.
const resetLog = "reset.log"

// resetBefore runs o.Reset (service.reset) before the runs of sides in
// round: once before a duet round's two processes start, once before each
// sequential run. Its output goes to reset.log in each of those runs'
// directories. A failed reset makes those runs invalid, with the reset's
// reason and the end of its output, and they are returned to be recorded
// and replaced like any invalid run; nil means measure. The error is set
// only when the experiment must stop (perfgate is stopping, or the
// results directory cannot be written).
func resetBefore(ctx context.Context, o Options, sides []string, round int, profileRound bool) ([]report.Run, error) {
	if o.Reset == nil {
		return nil, nil
	}
	runs := make([]report.Run, len(sides))
	logs := make([]io.Writer, len(sides))
	for i, side := range sides {
		runs[i] = report.Run{Side: side, Pair: round, Dir: runDir(side, round), ProfileRound: profileRound, Started: time.Now()}
		if o.Duet {
			runs[i].Duet = &report.Duet{}
		}
		dir := filepath.Join(o.OutDir, runs[i].Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(dir, resetLog))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		logs[i] = f
	}
	err := o.Reset(ctx, io.MultiWriter(logs...))
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for i := range runs {
		runs[i].InvalidReasons = []string{invalidBecause(err, filepath.Join(runs[i].Dir, resetLog))}
	}
	return runs, nil
}

// invalidBecause is a run's invalid reason for a failed reset whose output
// (its start and end, see reset.Command.Run) is in logPath: what happened
// first, then the output's end.
func invalidBecause(err error, logPath string) string {
	var f *reset.Failure
	if !errors.As(err, &f) {
		return fmt.Sprintf("service.reset failed before this run: %v", err)
	}
	reason := fmt.Sprintf("service.reset before this run %s (its output: %s)", f.Reason, logPath)
	if f.Tail != "" {
		reason += "; last lines of its output:\n" + f.Tail
	}
	return reason
}
