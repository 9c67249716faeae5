package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
)

// conclude writes the derived results (merged profiles, benchstat files,
// medians) and decides the verdict. Until the statistics step exists the
// verdict is pass unless the measurement is invalid or an error ended it.
func (g *gateRun) conclude(err error) {
	rep := g.rep
	rep.Finished = time.Now()
	runs := rep.Runs
	for _, side := range []string{experiment.Base, experiment.Head} {
		if _, mergeErr := results.MergeProfiles(g.o.Out, runs, side); mergeErr != nil {
			g.warn(mergeErr.Error())
		}
		if benchErr := results.WriteBench(g.o.Out, rep.Environment, runs, side); benchErr != nil {
			g.warn(benchErr.Error())
		}
	}
	rep.Summary = results.Medians(runs)
	rep.Verdict, rep.Reason = verdict(err, runs, g.cfg.Pairs)
	rep.Complete = err == nil
	var be *build.Error
	if errors.As(err, &be) {
		rep.Build.Error = be.OutputTail
	}
}

func verdict(err error, runs []report.Run, pairs int) (string, string) {
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
	valid := validPairs(runs)
	if need := min(2, pairs); valid < need || 2*valid < pairs {
		return report.Invalid, fmt.Sprintf("invalid measurement: only %d of %d pairs have both runs valid; %s", valid, pairs, invalidSummary(runs))
	}
	return report.Pass, fmt.Sprintf("%d of %d pairs valid; statistics and thresholds are not applied in this version", valid, pairs)
}

// validPairs counts pairs whose base and head runs are both valid.
func validPairs(runs []report.Run) int {
	valid := map[int]int{}
	for _, r := range runs {
		if r.Valid {
			valid[r.Pair]++
		}
	}
	n := 0
	for _, v := range valid {
		if v == 2 {
			n++
		}
	}
	return n
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
