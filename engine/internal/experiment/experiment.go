// Package experiment runs the measured base-versus-head experiment: N
// pairs, each a fresh base process and a fresh head process in a seeded
// random order, each warmed up and measured over one window. A recording
// (perfgate run) measures one side the same way, one run per pair.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Sides, in the order the results directory names them.
const (
	Base = "base"
	Head = "head"
)

// giveUpAfter is how many invalid runs in a row of one side end the
// experiment early: the rest would be invalid for the same reason, and a
// user should not wait minutes to learn it.
const giveUpAfter = 3

// Options are one experiment.
type Options struct {
	Config *config.Config
	Target target.Target
	// Binaries maps Base and Head to the built service binaries.
	Binaries map[string]string
	// OnlySide, when set, is the one side measured (a recording: its
	// Binaries entry alone is needed); each pair is then a single run of
	// it, with no order to draw.
	OnlySide string
	OutDir   string
	Seed     uint64
	// GeneratorCPUs is how many CPUs the load generator has, to judge
	// whether it saturated.
	GeneratorCPUs int
	// Progress receives one line per run.
	Progress io.Writer
	// Record is called with every run as soon as it is measured, so
	// results are on disk before anything can fail later.
	Record func(report.Run) error
}

// StartFailure is a side whose service could not be started: there is
// nothing to measure, which makes the experiment invalid.
type StartFailure struct {
	Side string
	Err  error
	Exit target.Exit
}

func (e *StartFailure) Error() string { return fmt.Sprintf("%s: %v", e.Side, e.Err) }
func (e *StartFailure) Unwrap() error { return e.Err }

// GaveUp is an experiment ended early because one side's runs kept being
// invalid.
type GaveUp struct {
	Side   string
	Reason string
}

func (e *GaveUp) Error() string {
	return fmt.Sprintf("stopped early: %d %s runs in a row were invalid (last: %s)", giveUpAfter, e.Side, e.Reason)
}

// Schedule is the order of the runs: for each pair, which side goes first.
func Schedule(pairs int, seed uint64) [][2]string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	order := make([][2]string, pairs)
	for i := range order {
		if rng.IntN(2) == 0 {
			order[i] = [2]string{Base, Head}
		} else {
			order[i] = [2]string{Head, Base}
		}
	}
	return order
}

// runOrder is the sides of each pair in the order they run: Schedule's
// seeded order for a comparison, the one side alone for a recording.
func runOrder(o Options) [][]string {
	order := make([][]string, o.Config.Pairs)
	if o.OnlySide != "" {
		for i := range order {
			order[i] = []string{o.OnlySide}
		}
		return order
	}
	for i, sides := range Schedule(o.Config.Pairs, o.Seed) {
		order[i] = []string{sides[0], sides[1]}
	}
	return order
}

// Run measures every pair and returns the runs it measured. It stops at the
// first start failure, after giveUpAfter invalid runs of a side in a row,
// or when ctx is cancelled (returning ctx's error and the runs so far).
func Run(ctx context.Context, o Options) ([]report.Run, error) {
	var runs []report.Run
	invalidInARow := map[string]int{}
	order := runOrder(o)
	total := 0
	for _, sides := range order {
		total += len(sides)
	}
	for pair, sides := range order {
		for _, side := range sides {
			r, err := measure(ctx, o, side, pair+1, len(runs)+1)
			if r.Side != "" {
				runs = append(runs, r)
				fmt.Fprintln(o.Progress, progressLine(r, len(runs), total))
				if recErr := o.Record(r); recErr != nil {
					return runs, fmt.Errorf("record run: %w", recErr)
				}
			}
			if err != nil {
				return runs, err
			}
			if ctx.Err() != nil {
				return runs, ctx.Err()
			}
			if r.Valid {
				invalidInARow[side] = 0
			} else if invalidInARow[side]++; invalidInARow[side] >= giveUpAfter {
				return runs, &GaveUp{Side: side, Reason: r.InvalidReasons[0]}
			}
		}
	}
	return runs, nil
}

// IsStartFailure reports whether err is a side that could not start.
func IsStartFailure(err error) (*StartFailure, bool) {
	var sf *StartFailure
	ok := errors.As(err, &sf)
	return sf, ok
}
