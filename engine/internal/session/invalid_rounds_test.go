package session

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// headOOMRounds is n duet rounds in which head's service was OOM-killed
// (serving errors as it died) and base's partner run was invalid for it.
func headOOMRounds(n int) []report.Run {
	oom := "OOM-killed (memory limit 64Mi)"
	var runs []report.Run
	for round := 1; round <= n; round++ {
		base := invalid(experiment.Base, round, "the head side of this round is invalid: "+oom)
		head := invalid(experiment.Head, round, oom)
		base.Figures.Requests, head.Figures.Requests, head.Figures.ErrorRate = 400, 400, 0.3
		head.ServiceFailed = true
		runs = append(runs, base, head)
	}
	return runs
}

// A head whose service fails in every round, for FailureStreak rounds, is
// a regression: the gate that gave up on it says so instead of calling
// the measurement merely invalid.
func TestHeadFailingEveryRoundIsARegressionNotAnInvalidMeasurement(t *testing.T) {
	cfg := config.Default()
	n := verdict.FailureStreak(cfg)
	runs := headOOMRounds(n)
	err := &experiment.GaveUp{Side: "duet", InARow: n, Reason: runs[1].InvalidReasons[0]}
	if v, _ := measurementVerdict(err, runs, cfg.Pairs); v != report.Invalid {
		t.Fatalf("measurement verdict %s, want invalid before the failures are weighed", v)
	}
	_, reason := measurementVerdict(err, runs, cfg.Pairs)
	v, reason, metrics := invalidRoundsAsEvidence(runs, cfg, reason)
	if v != report.Regression || len(metrics) != 1 || metrics[0].Name != "failures" {
		t.Fatalf("verdict %s (%s), metrics %+v; want a regression on failures alone", v, reason, metrics)
	}
	for _, want := range []string{
		"regression: failures: head's service failed in 9 of 9 rounds, base's in 0 (p=",
		"head: OOM-killed (memory limit 64Mi) ×9",
		"no other metric could be compared: invalid measurement: stopped early: 9 duet rounds in a row were invalid",
	} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q\nwant it to contain %q", reason, want)
		}
	}
}

// Too few failed rounds to be significant leave the measurement invalid,
// its reason saying which side failed how often (p adjusted for the looks:
// 2^-3 over the half of alpha the first look spends).
func TestFewFailedRoundsLeaveTheMeasurementInvalidWithTheirCount(t *testing.T) {
	cfg := config.Default()
	runs := headOOMRounds(3)
	err := &experiment.GaveUp{Side: "duet", InARow: 3, Reason: runs[1].InvalidReasons[0]}
	_, reason := measurementVerdict(err, runs, cfg.Pairs)
	v, reason, metrics := invalidRoundsAsEvidence(runs, cfg, reason)
	if v != report.Invalid || len(metrics) != 1 {
		t.Fatalf("verdict %s (%s), %d metrics; want invalid with the failures comparison", v, reason, len(metrics))
	}
	if want := "failures: head's service failed in 3 of 3 rounds, base's in 0 (p=0.25), not significant at gate.alpha"; !strings.HasSuffix(reason, want) {
		t.Errorf("reason %q\nwant it to end with %q", reason, want)
	}
}
