// Package experiment runs the measured base-versus-head experiment. A duet
// (the default) measures rounds in which a fresh base and a fresh head
// process serve one balanced attack at the same time on the same CPUs; a
// sequential experiment measures pairs of a fresh base process and a fresh
// head process one after the other in a seeded random order. Either adds
// rounds (pairs) until Options.Enough says the statistics have decided or
// the configured maximum is reached, replacing invalid ones. A recording
// (perfgate run) measures one side the same way, one run per pair.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Sides, as plain strings for the maps and orders of this package; the
// names are metric's.
const (
	Base = string(metric.Base)
	Head = string(metric.Head)
)

// giveUpAfter is how many invalid runs in a row of one side end the
// experiment early: the rest would be invalid for the same reason, and a
// user should not wait minutes to learn it. Rounds in which the same side's
// service alone failed go on to Options.FailureStreak: they are evidence.
const giveUpAfter = 3

// Options are one experiment.
type Options struct {
	Config *config.Config
	Target target.Target
	// Binaries maps Base and Head to the built service binaries.
	Binaries map[string]string
	// Layout, when set, links a side's service with a layout of the
	// round's own as req says (build.Layout): every round of a
	// comparison then runs binaries with layouts of its own
	// (roundBinaries says why). nil: every round runs fresh copies of
	// Binaries.
	Layout func(ctx context.Context, req LayoutRequest) error
	// OnlySide, when set, is the one side measured (a recording: its
	// Binaries entry alone is needed); each pair is then a single run of
	// it, with no order to draw.
	OnlySide string
	OutDir   string
	Seed     uint64
	// Duet runs base and head at the same time (experiment: duet); the
	// caller turns it off for targets whose load is generated elsewhere.
	Duet bool
	// GeneratorCPUs is how many CPUs the load generator has, to judge
	// whether it saturated; ServiceCPUs how many a duet's two sides share
	// (0: not pinned, all of the machine's).
	GeneratorCPUs int
	ServiceCPUs   int
	// Enough is asked after every valid round (pair) from the minimum on
	// (Config.Pairs) whether the runs so far decide the gate; nil runs
	// the maximum (Config.MaxPairs, at least Config.Pairs) valid ones.
	Enough func(runs []report.Run) bool
	// FailureStreak is how many rounds in a row in which the same side's
	// service alone failed (report.Run.ServiceFailed) a comparison
	// measures before it gives up: enough for the failures comparison to
	// call them significant (verdict.FailureStreak). Below giveUpAfter,
	// giveUpAfter.
	FailureStreak int
	// Progress receives one line per run.
	Progress io.Writer
	// Record is called with every run as soon as it is measured, so
	// results are on disk before anything can fail later.
	Record func(report.Run) error
	// Reset (service.reset) is run before every duet round and every
	// sequential run, its output written to log; an error (a
	// *reset.Failure) makes the runs it preceded invalid. nil: no reset.
	Reset func(ctx context.Context, log io.Writer) error

	// measured is called by a duet round once its window has been
	// measured, before its instances stop: measureUnit begins the next
	// round's binaries there (roundBinaries.prepareAhead).
	measured func()
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

// GaveUp is an experiment ended early because its runs kept being
// invalid: one side's, or a duet's rounds.
type GaveUp struct {
	// Side is base, head, or "duet" for rounds.
	Side string
	// InARow is how many were invalid in a row.
	InARow int
	Reason string
}

func (e *GaveUp) Error() string {
	what := e.Side + " runs"
	if e.Side == "duet" {
		what = "duet rounds"
	}
	return fmt.Sprintf("stopped early: %d %s in a row were invalid (last: %s)", e.InARow, what, e.Reason)
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

// Run measures rounds (pairs) until Config.Pairs are valid and Enough
// says the gate is decided, or Config.MaxPairs are valid, and returns the
// runs it measured. An invalid round is replaced by another, within a
// budget of half the maximum again. It stops at the first start failure,
// after giveUpAfter invalid runs (rounds) in a row, or when ctx is
// cancelled (returning ctx's error and the runs so far).
func Run(ctx context.Context, o Options) ([]report.Run, error) {
	if o.OnlySide != "" {
		return runFixed(ctx, o)
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	bins, err := newRoundBinaries()
	if err != nil {
		return nil, err
	}
	defer bins.close()
	minValid, maxValid := o.Config.Pairs, max(o.Config.Pairs, o.Config.MaxPairs)
	attempts := maxValid + max(giveUpAfter, o.FailureStreak, maxValid/2)
	var runs []report.Run
	valid := 0
	var invalid invalidStreak
	clock := newPace()
	profiling := 0
	if o.Duet && len(o.Config.Profiles) > 0 {
		profiling = o.Config.ProfileRounds
	}
	for round := 1; round <= attempts && valid < maxValid; round++ {
		// Profile rounds follow the last gating round; without them the
		// round made ahead after the deciding one goes unused.
		unit, err := measureUnit(ctx, o, round, false, rng, bins, profiling > 0 || round < attempts)
		validAfter := valid
		if firstInvalid(unit) == nil {
			validAfter++
		}
		eta := clock.unitDone(max(0, minValid-validAfter)+profiling, max(0, maxValid-validAfter)+profiling)
		var recErr error
		if runs, recErr = keep(o, runs, unit, valid, maxValid, eta); recErr != nil {
			return runs, recErr
		}
		if err != nil {
			return runs, err
		}
		if ctx.Err() != nil {
			return runs, ctx.Err()
		}
		if bad := firstInvalid(unit); bad != nil {
			if failed := serviceFailedRun(unit); failed != nil {
				// The side that failed names the cause; its partner's
				// reason only points to it.
				bad = failed
			}
			if invalid.add(unit); invalid.inARow >= invalid.limit(o) {
				side := bad.Side
				if o.Duet {
					side = "duet"
				}
				return runs, &GaveUp{Side: side, InARow: invalid.inARow, Reason: bad.InvalidReasons[0]}
			}
			continue
		}
		invalid = invalidStreak{}
		valid++
		if valid >= minValid && o.Enough != nil && o.Enough(runs) {
			break
		}
	}
	if o.Duet {
		return profileRounds(ctx, o, runs, rng, bins, clock)
	}
	return runs, nil
}

// profileRounds runs Config.ProfileRounds more duet rounds after the
// gating ones, capturing the profiles the gating rounds did not: their
// runs feed attribution and hints, never the statistics, and an invalid
// one is not replaced; after one whose load generator could not keep up,
// the next runs at a lower load (lowerAfterSaturation).
func profileRounds(ctx context.Context, o Options, runs []report.Run, rng *rand.Rand, bins *roundBinaries, clock *pace) ([]report.Run, error) {
	if len(o.Config.Profiles) == 0 {
		return runs, nil
	}
	first := 1
	if len(runs) > 0 {
		first = runs[len(runs)-1].Pair + 1
	}
	gating := o.Config
	var factor float64
	o.Config, factor = profilePlan(o.Config, runs)
	for round := first; round < first+gating.ProfileRounds; round++ {
		unit, err := measureUnit(ctx, o, round, true, rng, bins, round < first+gating.ProfileRounds-1)
		for i := range unit {
			if unit[i].Duet != nil {
				unit[i].Duet.ProfileLoad, unit[i].Duet.MemProfileRate = factor, profileMemRate
			}
		}
		left := first + gating.ProfileRounds - 1 - round
		var recErr error
		if runs, recErr = keep(o, runs, unit, 0, 0, clock.unitDone(left, left)); recErr != nil {
			return runs, recErr
		}
		if err != nil || ctx.Err() != nil {
			return runs, errors.Join(err, ctx.Err())
		}
		if left > 0 {
			var note string
			if o.Config, factor, note = nextProfileLoad(gating, factor, unit); note != "" {
				fmt.Fprintf(o.Progress, "profile round %d: %s\n", round, note)
			}
		}
	}
	return runs, nil
}

// measureUnit measures one round of a duet (a profile round when
// profileRound), or one pair of sequential runs in a random order. When
// another round may follow, a duet makes its binaries while this round's
// instances stop.
func measureUnit(ctx context.Context, o Options, round int, profileRound bool, rng *rand.Rand, bins *roundBinaries, another bool) ([]report.Run, error) {
	binaries, seeds, done, err := bins.forRound(ctx, o, round)
	defer done()
	if err != nil {
		return nil, err
	}
	if another {
		sources := o
		o.measured = func() { bins.prepareAhead(ctx, sources, round+1) }
	}
	o.Binaries = binaries
	unit, err := measureRoundOf(ctx, o, round, profileRound, rng)
	for i := range unit {
		unit[i].LayoutSeed = seeds[unit[i].Side]
	}
	return unit, err
}

// measureRoundOf measures one round of a duet, or one pair of sequential
// runs, on the round's binaries.
func measureRoundOf(ctx context.Context, o Options, round int, profileRound bool, rng *rand.Rand) ([]report.Run, error) {
	if o.Duet {
		if invalid, err := resetBefore(ctx, o, []string{Base, Head}, round, profileRound); invalid != nil || err != nil {
			return invalid, err
		}
		return duetRound(ctx, o, round, profileRound, rng)
	}
	order := [2]string{Base, Head}
	if rng.IntN(2) == 1 {
		order = [2]string{Head, Base}
	}
	var unit []report.Run
	for _, side := range order {
		// A pair with a side that cannot be reset is invalid whole: its
		// other side is not measured.
		if invalid, err := resetBefore(ctx, o, []string{side}, round, false); invalid != nil || err != nil {
			return append(unit, invalid...), err
		}
		r, err := measure(ctx, o, side, round)
		if r.Side != "" {
			unit = append(unit, r)
		}
		if err != nil || ctx.Err() != nil {
			return unit, err
		}
	}
	return unit, nil
}

// keep appends the unit's runs to runs, numbering them in the order
// measured, prints each (the last with eta, the time elapsed and left),
// and hands each to o.Record at once, so results are on disk before
// anything later can fail.
func keep(o Options, runs, unit []report.Run, validBefore, maxValid int, eta string) ([]report.Run, error) {
	for i, r := range unit {
		r.Order = len(runs) + 1
		runs = append(runs, r)
		line := progressLine(r, validBefore, maxValid)
		if i == len(unit)-1 {
			line += eta
		}
		fmt.Fprintln(o.Progress, line)
		if err := o.Record(r); err != nil {
			return runs, fmt.Errorf("record run: %w", err)
		}
	}
	return runs, nil
}

// invalidStreak is the invalid rounds (pairs) in a row, and the side whose
// service alone failed in every one of them ("" when not one side).
type invalidStreak struct {
	inARow   int
	oneSided string
}

func (s *invalidStreak) add(unit []report.Run) {
	switch failed := failedAlone(unit); {
	case s.inARow == 0:
		s.oneSided = failed
	case s.oneSided != failed:
		s.oneSided = ""
	}
	s.inARow++
}

// limit is how long the streak may grow: giveUpAfter, or FailureStreak
// while the same side's service alone failed in every round.
func (s *invalidStreak) limit(o Options) int {
	if s.oneSided != "" {
		return max(giveUpAfter, o.FailureStreak)
	}
	return giveUpAfter
}

// failedAlone is the side whose service alone failed in a round (pair) of
// two runs, or "".
func failedAlone(unit []report.Run) string {
	if len(unit) != 2 || unit[0].ServiceFailed == unit[1].ServiceFailed {
		return ""
	}
	if unit[0].ServiceFailed {
		return unit[0].Side
	}
	return unit[1].Side
}

// serviceFailedRun is the first run of a round (pair) whose service
// failed, or nil.
func serviceFailedRun(unit []report.Run) *report.Run {
	return firstRun(unit, func(r report.Run) bool { return r.ServiceFailed })
}

// firstInvalid is the first invalid run of a round (pair), or nil.
func firstInvalid(unit []report.Run) *report.Run {
	return firstRun(unit, func(r report.Run) bool { return !r.Valid })
}

// firstRun is the first run of unit that match accepts, or nil.
func firstRun(unit []report.Run, match func(report.Run) bool) *report.Run {
	for i := range unit {
		if match(unit[i]) {
			return &unit[i]
		}
	}
	return nil
}

// runFixed measures exactly Config.Pairs units in Schedule's order: a
// recording's runs of its one side.
func runFixed(ctx context.Context, o Options) ([]report.Run, error) {
	var runs []report.Run
	invalidInARow := map[string]int{}
	order := runOrder(o)
	clock := newPace()
	for pair, sides := range order {
		for _, side := range sides {
			r, err := measureAfterReset(ctx, o, side, pair+1)
			if r.Side != "" {
				left := (len(order)-pair-1)*len(sides) + len(sides) - 1 - slices.Index(sides, side)
				var recErr error
				if runs, recErr = keep(o, runs, []report.Run{r}, pair, len(order), clock.unitDone(left, left)); recErr != nil {
					return runs, recErr
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
				return runs, &GaveUp{Side: side, InARow: invalidInARow[side], Reason: r.InvalidReasons[0]}
			}
		}
	}
	return runs, nil
}

// measureAfterReset is measure preceded by the reset: a run of a
// recording, or the run that a failed reset made invalid.
func measureAfterReset(ctx context.Context, o Options, side string, pair int) (report.Run, error) {
	invalid, err := resetBefore(ctx, o, []string{side}, pair, false)
	if err != nil {
		return report.Run{}, err
	}
	if invalid != nil {
		return invalid[0], nil
	}
	return measure(ctx, o, side, pair)
}

// IsStartFailure reports whether err is a side that could not start.
func IsStartFailure(err error) (*StartFailure, bool) {
	var sf *StartFailure
	ok := errors.As(err, &sf)
	return sf, ok
}
