package experiment

import (
	"context"
	"errors"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// crashes makes side's service crash early in each of rounds.
func crashes(tg *targettest.Fake, side string, rounds ...int) {
	for _, round := range rounds {
		tg.Faults = append(tg.Faults, targettest.Fault{Side: side, Pair: round, AtRequest: 25, Kind: targettest.Crash})
	}
}

// crashConfig is duetConfig for tests in which only crashes may fail a
// service. The real generator paces its 100 ms windows; under the race
// detector on a busy machine it has fallen to 88% of the rate, which
// min_rate counts as that side's service failing (a CI run of a streak
// test saw base "fail" so) and would break the streaks asserted here.
func crashConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg := duetConfig(t, 3, 3, 0)
	cfg.Validity.MinRate = 0.05
	return cfg
}

// Rounds in which head's service alone fails are evidence against head:
// the duet goes on past giveUpAfter to FailureStreak of them, so that the
// failures comparison can call them significant.
func TestDuetMeasuresUpToFailureStreakWhileOneSideAloneFails(t *testing.T) {
	tg := newFake(false)
	crashes(tg, Head, 1, 2, 3, 4, 5, 6, 7)
	l := runLoopWith(context.Background(), t, tg, crashConfig(t), true, nil, func(o *Options) { o.FailureStreak = 5 })
	var gaveUp *GaveUp
	if !errors.As(l.err, &gaveUp) || gaveUp.InARow != 5 || gaveUp.Reason != "crashed during the run: signal SIGSEGV" {
		t.Fatalf("err %v, want a GaveUp after 5 rounds in a row, quoting head's own crash", l.err)
	}
	sameRuns(t, l)
	if len(l.runs) != 10 {
		t.Fatalf("%d runs, want the 5 rounds' 10", len(l.runs))
	}
	for _, r := range l.runs {
		if r.Valid || r.ServiceFailed != (r.Side == Head) {
			t.Errorf("%s/%d: valid %v, service failed %v; want invalid, and only head's service failed", r.Side, r.Pair, r.Valid, r.ServiceFailed)
		}
	}
}

// A streak in which the failing side changes, or both fail, is not
// evidence against one side: it ends at giveUpAfter.
func TestDuetGivesUpAtThreeWhenTheFailuresAreNotOneSided(t *testing.T) {
	tests := []struct {
		name string
		base []int
		head []int
	}{
		{name: "head, then base", head: []int{1, 3, 4, 5}, base: []int{2}},
		{name: "both sides in one round", head: []int{1, 2, 3, 4, 5}, base: []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := newFake(false)
			crashes(tg, Head, tt.head...)
			crashes(tg, Base, tt.base...)
			l := runLoopWith(context.Background(), t, tg, crashConfig(t), true, nil, func(o *Options) { o.FailureStreak = 5 })
			var gaveUp *GaveUp
			if !errors.As(l.err, &gaveUp) || gaveUp.InARow != giveUpAfter || len(l.runs) != 2*giveUpAfter {
				t.Fatalf("err %v after %d runs, want a GaveUp after %d rounds", l.err, len(l.runs), giveUpAfter)
			}
		})
	}
}

func TestFailedAloneNamesTheOneSideWhoseServiceFailed(t *testing.T) {
	run := func(side string, failed bool) report.Run { return report.Run{Side: side, ServiceFailed: failed} }
	tests := []struct {
		unit []report.Run
		want string
	}{
		{[]report.Run{run(Base, false), run(Head, true)}, Head},
		{[]report.Run{run(Head, true), run(Base, false)}, Head},
		{[]report.Run{run(Base, true), run(Head, false)}, Base},
		{[]report.Run{run(Base, true), run(Head, true)}, ""},
		{[]report.Run{run(Base, false), run(Head, false)}, ""},
		{[]report.Run{run(Head, true)}, ""},
	}
	for _, tt := range tests {
		if got := failedAlone(tt.unit); got != tt.want {
			t.Errorf("failedAlone(%+v) = %q, want %q", tt.unit, got, tt.want)
		}
	}
}
