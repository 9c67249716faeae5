package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// printMetrics writes the paired comparison as a plain-text table, with
// what each gating metric could have detected.
func printMetrics(w io.Writer, metrics []report.Metric) {
	if len(metrics) == 0 {
		return
	}
	rows := [][]string{{"metric", "base", "head", "change", "confidence interval", "ruled out above", "p", "outcome", "could detect"}}
	var turnOn []string // perfgate.yml keys that would make a reported metric gate
	reportedOnly := false
	for _, m := range metrics {
		c := metric.Of(m)
		outcome := m.Outcome
		if !m.Gates {
			outcome += "*"
			reportedOnly = true
			if c.Gate != nil && c.Gate.Key != "" && !slices.Contains(turnOn, c.Gate.Key) {
				turnOn = append(turnOn, c.Gate.Key)
			}
		}
		rows = append(rows, []string{m.Name, c.Format(m.Base), c.Format(m.Head), c.FormatChange(m.Delta),
			fmt.Sprintf("%s (%s)", c.FormatInterval(m.CI[0], m.CI[1]), metric.Percent(m.CILevel)), ruledOut(m),
			metric.PValue(m.ShownP()), outcome, detectable(m)})
	}
	printColumns(w, rows, map[int]bool{0: true, 7: true, 8: true})
	if reportedOnly {
		note := "* reported, does not gate"
		if len(turnOn) > 0 {
			note += " (set " + strings.Join(turnOn, " or ") + " to make it gate)"
		}
		fmt.Fprintln(w, note)
	}
}

// printColumns aligns rows in columns two spaces apart, numbers to the
// right and the columns in left to the left.
func printColumns(w io.Writer, rows [][]string, left map[int]bool) {
	widths := map[int]int{}
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			switch {
			case i == len(row)-1 && left[i]:
				b.WriteString(cell)
			case left[i]:
				b.WriteString(cell + pad)
			default:
				b.WriteString(pad + cell)
			}
			if i < len(row)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, b.String())
	}
}
