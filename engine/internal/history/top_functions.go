package history

import (
	"sort"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// TopFunctions are the largest function deltas of a gate in the profile
// the metric comes from (CPU for CPU time and latency), in the metric's
// terms where the profile has several (allocations or bytes).
func TopFunctions(rep *report.Report, m *metric.Metric, n int) []Function {
	profile, unit := ProfileOf(m)
	var fs []Function
	for _, f := range rep.Functions {
		if f.Profile == profile && (unit == "" || f.Unit == unit) {
			fs = append(fs, Function{Profile: f.Profile, Name: Clean(f.Name, MaxName), Unit: f.Unit, Delta: f.Delta})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return abs(fs[i].Delta) > abs(fs[j].Delta) })
	// A function can have a flat and a cum row: the alarm lists it once,
	// with the larger change.
	seen := map[string]bool{}
	unique := fs[:0]
	for _, f := range fs {
		if !seen[f.Name] {
			seen[f.Name] = true
			unique = append(unique, f)
		}
	}
	fs = unique
	if len(fs) > n {
		fs = fs[:n]
	}
	return fs
}

// ProfileOf is the profile a metric's cost shows in (CPU for CPU time and
// latency) and the unit of its rows there ("" for the profile's only one).
func ProfileOf(m *metric.Metric) (profile, unit string) {
	switch m {
	case metric.Allocs:
		return "allocs", "allocs/req"
	case metric.Bytes, metric.Heap:
		return "allocs", "B/req"
	case metric.Goroutines:
		return "goroutine", ""
	}
	return "cpu", ""
}
