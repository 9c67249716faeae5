package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// summaryTable is the first screen's compact table: one row per gating
// metric that did not come out unchanged, named by the catalog's title
// (the same words as the headline), with each side's median, the paired
// change and its likely range. The headers say which is which, because
// the change is not the ratio of the medians beside it: it is estimated
// from the rounds' paired ratios, which cancel what the machine did to
// both sides in a round, and the two can differ by a few tenths of a
// percent (the statistics fold says it in full). The unchanged ones are one line under it,
// with their change, and a metric that read zero on both sides (no errors
// at all) is named there too. The interval's level, p-values and what
// the run could detect are in statisticsSection: the first screen says
// "likely range" and the fold says how likely.
func summaryTable(rep *report.Report) string {
	var rows, unchanged []string
	for _, m := range rep.Metrics {
		if !m.Gates {
			continue
		}
		c := metric.Of(m)
		switch {
		case m.Base == 0 && m.Head == 0 && m.CI[0] == 0 && m.CI[1] == 0:
			unchanged = append(unchanged, titleOf(m)+": none")
		case m.Outcome == "unchanged":
			unchanged = append(unchanged, fmt.Sprintf("%s %s", titleOf(m), cell(c, c.FormatChange(m.Delta))))
		default:
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s %s |",
				UpperFirst(titleOf(m)), cell(c, c.Format(m.Base)), cell(c, c.Format(m.Head)),
				cell(c, c.FormatChange(m.Delta)), cell(c, c.FormatInterval(m.CI[0], m.CI[1])), outcomeIcon[m.Outcome], Text(m.Outcome)))
		}
	}
	var b strings.Builder
	if len(rows) > 0 {
		fmt.Fprintf(&b, "| gating metric | base (median) | head (median) | change (paired) | likely range | outcome |\n|---|--:|--:|--:|--:|---|\n%s\n\n", strings.Join(rows, "\n"))
	}
	if len(unchanged) > 0 {
		fmt.Fprintf(&b, "<sub>Unchanged: %s.</sub>\n", strings.Join(unchanged, ", "))
	}
	return b.String()
}

// cell is a figure in a row already named by the catalog's title ("CPU
// per request"): the unit's "per request" part is left to the title, so
// "373.7 µs", "89.4 allocs", "78.1 KiB". A metric the catalog does not
// know keeps its whole unit, escaped (shown).
func cell(c *metric.Metric, s string) string {
	if known, ok := metric.Lookup(c.Name); !ok || known != c {
		return shown(c, s)
	}
	for _, per := range []string{"/1k req", "/req"} {
		if noun, ok := strings.CutSuffix(c.Unit, per); ok {
			s = strings.ReplaceAll(s, per, "")
			if strings.Contains(c.Title, noun) {
				// "goroutines left alive per 1k requests" already says
				// what is counted: "0.76", not "0.76 goroutines".
				s = strings.ReplaceAll(s, " "+noun, "")
			}
			return s
		}
	}
	return s
}
