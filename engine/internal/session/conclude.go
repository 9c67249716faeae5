package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/benchtable"
	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/endpoint"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/hints"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/stats"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// conclude writes the derived results (merged profiles, benchstat files,
// medians) and decides the verdict: error or invalid when the experiment
// failed; otherwise, for a gate, what the paired gating metrics say, and
// for a recording, pass (there is nothing to compare).
func (g *invocation) conclude(err error) {
	rep := g.rep
	runs := rep.Runs
	for _, side := range g.sidesMeasured() {
		if _, mergeErr := results.MergeProfiles(g.out, runs, side); mergeErr != nil {
			g.warn(mergeErr.Error())
		}
		if benchErr := results.WriteBench(g.out, rep.Environment, runs, side); benchErr != nil {
			g.warn(benchErr.Error())
		}
	}
	rep.Summary = results.Medians(runs)
	switch {
	case rep.PairedRecording():
		g.comparePairedRecording(err)
	case rep.Recording():
		rep.Verdict, rep.Reason = recordingVerdict(err, runs, g.cfg.Pairs, rep.Label)
	default:
		g.compareSides(err)
		g.concludeMainHistory()
	}
	rep.Hints = append([]report.Hint{}, hints.For(rep)...)
	rep.ServiceHints = hints.ServiceHints(rep)
}

// sidesMeasured are the sides whose runs the results directory holds: a
// recording measures head alone and writes no base files, unless it is
// paired.
func (g *invocation) sidesMeasured() []metric.Side {
	if g.rep.Recording() && !g.rep.PairedRecording() {
		return []metric.Side{metric.Head}
	}
	return metric.Sides
}

// compareSides attributes the change per function, tabulates the sides
// and, when the measurement allows it, decides the gate on the paired
// statistics and compares each endpoint beside it (reported only).
func (g *invocation) compareSides(err error) {
	rep := g.rep
	runs := rep.Runs
	g.attributeFunctions()
	rep.Flame = attribution.Flame(g.out, runs)
	rep.Benchstat = benchtable.Rows(runs)
	rep.Verdict, rep.Reason = measurementVerdict(err, runs, g.cfg.Pairs)
	switch rep.Verdict {
	case report.Pass:
		rep.Metrics = verdict.CompareAtLook(runs, g.cfg.Gate, verdict.Plan(g.cfg))
		rep.Verdict, rep.Reason, rep.Counts = verdict.Decide(rep.Metrics)
		if failed := failuresOf(rep.Metrics); failed != nil && failed.Outcome == stats.Regression {
			rep.Reason += " (" + failureSummary(runs) + ")"
		}
		endpoints, warnings := endpoint.Compare(g.out, runs, g.cfg)
		rep.Endpoints = endpoints
		for _, w := range warnings {
			g.warn("endpoints: " + w.Error())
		}
	case report.Invalid:
		rep.Verdict, rep.Reason, rep.Metrics = invalidRoundsAsEvidence(runs, g.cfg, rep.Reason)
	}
}

// attributeFunctions puts the per-request change of each function, head
// against base, in the report (profile attribution).
func (g *invocation) attributeFunctions() {
	rep := g.rep
	functions, warnings := attribution.Functions(g.out, rep.Runs, attribution.OwnCode(rep.Build.Head.BuildInfo, rep.Build.Base.BuildInfo))
	rep.Functions = append([]report.Function{}, functions...)
	for _, w := range warnings {
		g.warn("profile attribution: " + w.Error())
	}
}

// comparePairedRecording estimates how the recorded tree differs from the
// commit it was paired with, metric by metric, and where (functions). Its
// verdict is a recording's, pass or invalid, never a regression: nothing
// is decided against a threshold, trend reads the estimates over nights.
func (g *invocation) comparePairedRecording(err error) {
	rep := g.rep
	rep.Verdict, rep.Reason = measurementVerdict(err, rep.Runs, g.cfg.Pairs)
	if rep.Verdict != report.Pass {
		return
	}
	g.attributeFunctions()
	rep.Paired = verdict.PairedEstimates(rep.Runs)
	rep.Reason = fmt.Sprintf("recorded %s paired with %s (%s: %s); nothing decided (mode record): trend reads the paired estimates",
		rep.Label, shortCommit(rep.PairedWith), rep.Experiment, rep.Reason)
}

// shortCommit is a commit's first 7 characters, as git shows it.
func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// invalidRoundsAsEvidence weighs the rounds of an invalid measurement: when
// head's service failed in significantly more of them than base's (the
// failures comparison, at the look the valid rounds reached), the gate is
// a regression after all, since a service that fails is never "not a
// regression". Otherwise it stays invalid, and its reason says how often
// each side's service failed. The failures comparison is the one metric
// kept: the others had too few valid rounds to mean anything.
func invalidRoundsAsEvidence(runs []report.Run, cfg *config.Config, reason string) (string, string, []report.Metric) {
	failed := failuresOf(verdict.CompareAtLook(runs, cfg.Gate, verdict.Plan(cfg)))
	if failed == nil {
		return report.Invalid, reason, nil
	}
	metrics := []report.Metric{*failed}
	if failed.Outcome == stats.Regression {
		return report.Regression, fmt.Sprintf("regression: %s (%s); no other metric could be compared: %s",
			verdict.Describe(*failed), failureSummary(runs), reason), metrics
	}
	if failed.Head > 0 || failed.Base > 0 {
		reason += "; " + verdict.Describe(*failed) + ", not significant at gate.alpha"
	}
	return report.Invalid, reason, metrics
}

// failuresOf is the failures comparison among metrics, or nil.
func failuresOf(metrics []report.Metric) *report.Metric {
	for i := range metrics {
		if metrics[i].Name == metric.Failures.Name {
			return &metrics[i]
		}
	}
	return nil
}

// failureSummary names each distinct way a side's service failed, with its
// count, e.g. "head: OOM-killed (memory limit 64Mi) ×8".
func failureSummary(runs []report.Run) string {
	var failed []report.Run
	for _, r := range runs {
		if r.ServiceFailed && !r.ProfileRound {
			failed = append(failed, r)
		}
	}
	return invalidSummary(failed)
}

// measurementVerdict is error or invalid when the experiment failed or its
// measurement cannot be compared, and pass when the statistics may decide.
func measurementVerdict(err error, runs []report.Run, pairs int) (string, string) {
	if v, reason, failed := failureVerdict(err, runs); failed {
		return v, reason
	}
	valid := len(verdict.ValidPairs(runs))
	if !enoughValid(valid, pairs) {
		return report.Invalid, fmt.Sprintf("invalid measurement: only %d of %d pairs have both runs valid; %s", valid, pairs, invalidSummary(runs))
	}
	return report.Pass, fmt.Sprintf("%d of %d pairs valid", valid, pairs)
}

// enoughValid is the rule for a usable measurement: at least two valid
// pairs (or runs, in a recording), one when only one was asked for, and
// at least half of those asked for.
func enoughValid(valid, pairs int) bool {
	return valid >= min(2, pairs) && 2*valid >= pairs
}

// failureVerdict is the verdict and reason of an experiment that ended
// with err (failed is false when err is nil): the same for a gate and a
// recording.
func failureVerdict(err error, runs []report.Run) (v, reason string, failed bool) {
	var ce *ConfigError
	var be *build.Error
	var gaveUp *experiment.GaveUp
	switch sf, startFailed := experiment.IsStartFailure(err); {
	case err == nil:
		return "", "", false
	case errors.Is(err, context.Canceled):
		return report.Error, "interrupted: perfgate was stopped before the experiment finished; the runs measured so far are kept", true
	case errors.As(err, &ce):
		return report.Error, "configuration error: " + err.Error(), true
	case errors.As(err, &be):
		return report.Error, fmt.Sprintf("build failed: %s could not be built; see build.error", be.Label), true
	case startFailed:
		reason := runs[len(runs)-1].InvalidReasons[0]
		return report.Invalid, fmt.Sprintf("the %s service could not be measured: %s", sf.Side, reason), true
	case errors.As(err, &gaveUp):
		return report.Invalid, "invalid measurement: " + err.Error(), true
	default:
		return report.Error, "infrastructure error: " + err.Error(), true
	}
}

// invalidSummary names each distinct invalid reason with its side and count,
// e.g. "head: OOM-killed (memory limit 8Mi) ×2".
func invalidSummary(runs []report.Run) string {
	return countReasons(runs, func(r report.Run, reason string) string { return r.Side + ": " + reason })
}

// countReasons joins the distinct invalid reasons, each named by key and
// counted, in order of first appearance.
func countReasons(runs []report.Run, key func(r report.Run, reason string) string) string {
	counts := map[string]int{}
	var order []string
	for _, r := range runs {
		for _, reason := range r.InvalidReasons {
			k := key(r, reason)
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s ×%d", k, counts[k])
	}
	return strings.Join(parts, "; ")
}
