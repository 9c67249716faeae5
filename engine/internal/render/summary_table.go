package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// summaryTable is the first screen's compact table: the gating metrics
// only, values scaled with their units, the interval's level said once in
// the header, and a metric that read zero on both sides (no errors at
// all) folded into one line under the table. Every metric, with
// p-values and what the run could detect, is in statisticsSection.
func summaryTable(rep *report.Report) string {
	var shownMetrics []report.Metric
	var rows, zero []string
	levels := map[string]bool{}
	for _, m := range rep.Metrics {
		if !m.Gates {
			continue
		}
		if m.Base == 0 && m.Head == 0 && m.CI[0] == 0 && m.CI[1] == 0 {
			zero = append(zero, titleOf(m))
			continue
		}
		levels[metric.Percent(m.CILevel)] = true
		shownMetrics = append(shownMetrics, m)
	}
	for _, m := range shownMetrics {
		c := metric.Of(m)
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s %s |",
			Text(m.Name), shown(c, c.Format(m.Base)), shown(c, c.Format(m.Head)),
			shown(c, c.FormatChange(m.Delta))+" ("+shown(c, c.FormatInterval(m.CI[0], m.CI[1]))+levelOnRow(m, len(levels))+")",
			outcomeIcon[m.Outcome], Text(m.Outcome)))
	}
	if len(rows) == 0 {
		return ""
	}
	header := "change (interval)"
	if len(levels) == 1 {
		for level := range levels {
			header = fmt.Sprintf("change (%s interval)", level)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| gating metric | base | head | %s | outcome |\n|---|--:|--:|--:|---|\n%s\n", header, strings.Join(rows, "\n"))
	if len(zero) > 0 {
		fmt.Fprintf(&b, "\n<sub>Zero on both sides: %s.</sub>\n", strings.Join(zero, ", "))
	}
	return b.String()
}

// levelOnRow states a row's interval level only when the rows differ.
func levelOnRow(m report.Metric, levels int) string {
	if levels <= 1 {
		return ""
	}
	return ", " + metric.Percent(m.CILevel)
}
