package render

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// printEndpoints writes the per-endpoint comparison as a plain-text table,
// the request line on its first row, when there are at least two lines
// (with one, the paired comparison above is that line). Request paths
// reach here from perfgate.yml, whose validation refuses control
// characters.
func printEndpoints(w io.Writer, endpoints []report.Endpoint) {
	if len(endpoints) < 2 {
		return
	}
	fmt.Fprintln(w, "\nper endpoint (each request line alone over the same pairs; reported, never gating):")
	rows := [][]string{{"request", "metric", "base", "head", "change", "confidence interval", "p", "outcome"}}
	for _, e := range endpoints {
		request := fmt.Sprintf("%s %s (%d pairs)", e.Method, e.Path, e.Pairs)
		for _, m := range e.Metrics {
			c := metric.Of(m)
			rows = append(rows, []string{request, m.Name, c.Format(m.Base), c.Format(m.Head), c.FormatChange(m.Delta),
				fmt.Sprintf("%s (%s)", c.FormatInterval(m.CI[0], m.CI[1]), metric.Percent(m.CILevel)), metric.PValue(m.ShownP()), m.Outcome})
			request = ""
		}
		for _, md := range e.Summary {
			c := metric.OfMedian(md)
			rows = append(rows, []string{request, md.Name, c.Format(md.Base), c.Format(md.Head), c.FormatChange(md.Delta), "", "", "median only"})
			request = ""
		}
	}
	printColumns(w, rows, map[int]bool{0: true, 1: true, 7: true})
}
