package verdict

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// failHead makes head's service fail in each of rounds (1-based) of rs
// (runs' layout: base, head per round): an error rate above
// validity.max_errors, which also makes its partner invalid.
func failHead(rs []report.Run, rounds ...int) {
	for _, round := range rounds {
		base, head := &rs[2*(round-1)], &rs[2*(round-1)+1]
		head.Valid, head.ServiceFailed, head.Figures.ErrorRate = false, true, 0.05
		head.InvalidReasons = []string{"error rate 5.00% is above the allowed 1% (status 500 ×50)"}
		base.Valid, base.InvalidReasons = false, []string{"the head side of this round is invalid: " + head.InvalidReasons[0]}
	}
}

func metricNamed(t *testing.T, metrics []report.Metric, name string) report.Metric {
	t.Helper()
	for _, m := range metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no %s metric among %d", name, len(metrics))
	return report.Metric{}
}

// A head whose service fails in round after round is a regression even
// though the valid rounds (where it did not fail) show nothing.
func TestHeadFailingInManyRoundsIsARegression(t *testing.T) {
	// 14 valid rounds, and 12 in which head's service failed: 2^-12 is
	// within the level of a family of six (cpu, allocs, errors, failures
	// and what else is in it).
	rs := runs(26, 100)
	failHead(rs, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23)
	plan := stats.Plan{Alpha: 0.01, Min: 14, Max: 14}
	metrics := CompareAtLook(rs, gate(), plan)
	f := metricNamed(t, metrics, "failures")
	if f.Outcome != stats.Regression || !f.Gates || f.Pairs != 26 || f.Scale != "absolute" {
		t.Fatalf("failures %+v, want a gating regression over all 26 rounds", f)
	}
	if f.Head != 12.0/26 || f.Base != 0 || f.Delta != 12.0/26 || f.CI[0] <= 0 {
		t.Errorf("failures: head %v, base %v, change %v (CI %v); want head's 12 of 26 rounds against none, above 0", f.Head, f.Base, f.Delta, f.CI)
	}
	verdict, reason, _ := Decide(metrics)
	if verdict != report.Regression || !strings.Contains(reason, "failures: head's service failed in 12 of 26 rounds, base's in 0 (p=") {
		t.Errorf("verdict %s: %s", verdict, reason)
	}
	// Errors counts the failed rounds' errors too, never dropping them.
	if e := metricNamed(t, metrics, "errors"); e.Pairs != 26 || e.CI[1] < 0.04 {
		t.Errorf("errors %+v, want every round's error rates, head's 5%% among them", e)
	}
}

// A few failures of head, or as many of base's, are not evidence: the
// failures comparison stays unchanged and leaves the family, so it costs
// the other metrics nothing.
func TestFewOrEvenFailuresAreNotARegression(t *testing.T) {
	tests := []struct {
		name string
		fail func([]report.Run)
	}{
		{"none", func([]report.Run) {}},
		{"head in 3 rounds", func(rs []report.Run) { failHead(rs, 2, 6, 9) }},
		{"both sides alike", func(rs []report.Run) {
			failHead(rs, 2, 6, 9)
			for _, round := range []int{3, 8, 12} {
				rs[2*(round-1)].ServiceFailed, rs[2*(round-1)].Valid = true, false
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := runs(16, 137)
			tt.fail(rs)
			metrics := CompareAtLook(rs, gate(), stats.Plan{Alpha: 0.01, Min: 14, Max: 14})
			if f := metricNamed(t, metrics, "failures"); f.Outcome != stats.Unchanged || f.InFamily {
				t.Errorf("failures %+v, want unchanged and out of the family", f)
			}
			if a := metricNamed(t, metrics, "allocs"); a.Outcome != stats.Regression {
				t.Errorf("allocs %+v, want the +37%% regression still called", a)
			}
		})
	}
}

// FailureStreak is the rounds whose failures reach the first look's level
// in a family of two (failures and errors): 2^-n <= level/2.
func TestFailureStreakReachesTheFirstLook(t *testing.T) {
	cfg := config.Default()
	n := FailureStreak(cfg)
	level := Plan(cfg).LevelAt(cfg.Pairs)
	if n < 1 || 1/float64(int(1)<<n) > level/2 || 1/float64(int(1)<<(n-1)) <= level/2 {
		t.Errorf("FailureStreak %d at a first-look level of %g: want the smallest n with 2^-n <= half of it", n, level)
	}
	rs := runs(n, 100)
	failHead(rs, func() []int {
		all := make([]int, n)
		for i := range all {
			all[i] = i + 1
		}
		return all
	}()...)
	if f := metricNamed(t, CompareAtLook(rs, cfg.Gate, Plan(cfg)), "failures"); f.Outcome != stats.Regression {
		t.Errorf("head failing in all %d rounds: failures %+v, want a regression", n, f)
	}
}

// A head that errors in one round of five is too rare for failures, but
// its errors count: the gate is inconclusive, not a pass.
func TestRareHeadErrorsMakeTheGateInconclusive(t *testing.T) {
	rs := runs(17, 100)
	failHead(rs, 4, 9, 14)
	metrics := CompareAtLook(rs, gate(), stats.Plan{Alpha: 0.01, Min: 14, Max: 14})
	if f := metricNamed(t, metrics, "failures"); f.Outcome != stats.Unchanged {
		t.Errorf("failures %+v, want unchanged: 3 rounds cannot reach the level", f)
	}
	if e := metricNamed(t, metrics, "errors"); e.Outcome != stats.Inconclusive || e.Pairs != 17 {
		t.Errorf("errors %+v, want inconclusive over all 17 rounds", e)
	}
	if verdict, reason, _ := Decide(metrics); verdict != report.Inconclusive {
		t.Errorf("verdict %s (%s), want inconclusive", verdict, reason)
	}
}
