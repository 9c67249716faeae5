package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/benchtable"
	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/hints"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// conclude writes the derived results (merged profiles, benchstat files,
// medians, paired statistics) and decides the verdict: error or invalid
// when the experiment failed, otherwise what the gating metrics say.
func (g *gateRun) conclude(err error) {
	rep := g.rep
	runs := rep.Runs
	for _, side := range []string{experiment.Base, experiment.Head} {
		if _, mergeErr := results.MergeProfiles(g.o.Out, runs, side); mergeErr != nil {
			g.warn(mergeErr.Error())
		}
		if benchErr := results.WriteBench(g.o.Out, rep.Environment, runs, side); benchErr != nil {
			g.warn(benchErr.Error())
		}
	}
	functions, warnings := attribution.Functions(g.o.Out, runs)
	rep.Functions = append([]report.Function{}, functions...)
	rep.Flame = attribution.Flame(g.o.Out, runs)
	for _, w := range warnings {
		g.warn("profile attribution: " + w.Error())
	}
	rep.Summary = results.Medians(runs)
	rep.Benchstat = benchtable.Rows(runs)
	rep.Verdict, rep.Reason = measurementVerdict(err, runs, g.cfg.Pairs)
	if rep.Verdict == report.Pass {
		rep.Metrics = verdict.Compare(runs, g.cfg.Gate)
		rep.Verdict, rep.Reason, rep.Counts = verdict.Decide(rep.Metrics)
	}
	rep.Hints = append([]report.Hint{}, hints.For(rep)...)
}

// measurementVerdict is error or invalid when the experiment failed or its
// measurement cannot be compared, and pass when the statistics may decide.
func measurementVerdict(err error, runs []report.Run, pairs int) (string, string) {
	var ce *ConfigError
	var be *build.Error
	var gaveUp *experiment.GaveUp
	switch sf, startFailed := experiment.IsStartFailure(err); {
	case errors.Is(err, context.Canceled):
		return report.Error, "interrupted: perfgate was stopped before the experiment finished; the runs measured so far are kept"
	case errors.As(err, &ce):
		return report.Error, "configuration error: " + err.Error()
	case errors.As(err, &be):
		return report.Error, fmt.Sprintf("build failed: %s could not be built; see build.error", be.Label)
	case startFailed:
		reason := runs[len(runs)-1].InvalidReasons[0]
		return report.Invalid, fmt.Sprintf("the %s service could not be measured: %s", sf.Side, reason)
	case errors.As(err, &gaveUp):
		return report.Invalid, "invalid measurement: " + err.Error()
	case err != nil:
		return report.Error, "infrastructure error: " + err.Error()
	}
	valid := len(verdict.ValidPairs(runs))
	if need := min(2, pairs); valid < need || 2*valid < pairs {
		return report.Invalid, fmt.Sprintf("invalid measurement: only %d of %d pairs have both runs valid; %s", valid, pairs, invalidSummary(runs))
	}
	return report.Pass, fmt.Sprintf("%d of %d pairs valid", valid, pairs)
}

// invalidSummary names each distinct invalid reason with its side and count,
// e.g. "head: OOM-killed (memory limit 8Mi) ×2".
func invalidSummary(runs []report.Run) string {
	counts := map[string]int{}
	var order []string
	for _, r := range runs {
		for _, reason := range r.InvalidReasons {
			key := r.Side + ": " + reason
			if counts[key] == 0 {
				order = append(order, key)
			}
			counts[key]++
		}
	}
	parts := make([]string, len(order))
	for i, key := range order {
		parts[i] = fmt.Sprintf("%s ×%d", key, counts[key])
	}
	return strings.Join(parts, "; ")
}
