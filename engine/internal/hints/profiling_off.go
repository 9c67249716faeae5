package hints

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// ServiceHints are about the service rather than the change, and about
// what the gate's shape can see (contention_shape.go): a mutex or block
// profile that came back empty from every run because the service never
// turned it on. Go samples neither by default, and net/http/pprof
// does not change that, so lock contention (the "global lock" incident)
// stays invisible until the service opts in.
func ServiceHints(rep *report.Report) []report.Hint {
	var out []report.Hint
	if runs, off := emptyProfile(rep, "mutex"); off {
		out = append(out, report.Hint{
			Rule:     "mutex-profile-off",
			Message:  "The mutex profile is empty because the service never turned it on: call runtime.SetMutexProfileFraction(5) at start to see lock contention.",
			Evidence: fmt.Sprintf("0 contentions in all %d runs' mutex profiles; the service reports sampling period=0", runs),
		})
	}
	if runs, off := emptyProfile(rep, "block"); off {
		out = append(out, report.Hint{
			Rule:     "block-profile-off",
			Message:  "The block profile is empty, as it stays unless the service sets a rate: call runtime.SetBlockProfileRate(10000) at start to see blocking.",
			Evidence: fmt.Sprintf("0 blocking events in all %d runs' block profiles", runs),
		})
	}
	return append(out, contentionHidden(rep)...)
}

// emptyProfile counts the runs that captured the profile and says
// whether every one came back empty (for the mutex profile, with the
// service's fraction read as 0 wherever it was read).
func emptyProfile(rep *report.Report, name string) (runs int, off bool) {
	for _, r := range rep.Runs {
		for _, p := range r.Profiles {
			if p.Name != name || p.Error != "" {
				continue
			}
			if p.Samples > 0 || (p.Rate != nil && *p.Rate > 0) {
				return runs, false
			}
			runs++
		}
	}
	return runs, runs > 0
}
