package results

import (
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Medians compares the sides' medians of every catalog metric over their
// valid runs. Delta is on the metric's scale: relative for most, head −
// base for absolute ones (a rate, what a leak retains), whose base is
// often 0.
func Medians(runs []report.Run) []report.Median {
	var out []report.Median
	for _, m := range metric.Catalog {
		base, head := m.Values(runs, metric.Base), m.Values(runs, metric.Head)
		if len(base) == 0 && len(head) == 0 {
			continue
		}
		md := report.Median{Name: m.Name, Unit: m.Unit, Base: stats.Median(base), Head: stats.Median(head), BaseRuns: len(base), HeadRuns: len(head)}
		if len(base) > 0 && len(head) > 0 {
			md.Delta, _ = m.Change(md.Base, md.Head)
		}
		out = append(out, md)
	}
	return out
}
