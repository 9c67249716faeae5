package render

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/chart"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// mainHistorySection shows where main stands beside the gate: each gating
// metric's latest nightly medians as a sparkline (Markdown renders no
// SVG), the latest one, this gate's base and head medians for scale, and
// what the recorded spread lets a gate resolve.
func mainHistorySection(rep *report.Report) string {
	h := rep.MainHistory
	if h == nil || len(h.Metrics) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>Where main stands: its last nightly medians (%s, %d recordings)</summary>\n\n", Text(h.Config), h.Entries)
	fmt.Fprintln(&b, "| metric | main, oldest → newest | main now | this base → head | a gate here resolves |\n|---|---|---:|---:|---:|")
	for _, mm := range h.Metrics {
		m, ok := metric.Lookup(mm.Name)
		if !ok || len(mm.Medians) == 0 {
			continue
		}
		spark := chart.Sparkline(mm.Medians)
		if !mm.SameMachine {
			spark += " (another machine)"
		}
		resolves := "—"
		if mm.Resolvable > 0 {
			resolves = "≈ " + metric.Percent(mm.Resolvable)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |%s |\n", Text(mm.Name), spark, m.Format(mm.Medians[len(mm.Medians)-1]), gateMedians(rep, mm.Name, m), " "+resolves)
	}
	fmt.Fprintln(&b, "\n_\"Resolves\" is the smallest change a gate of pairs.max pairs catches 9 times in 10 at the nightly runs' spread; a duet's pairs usually vary less._\n\n</details>")
	return b.String()
}

// gateMedians is this gate's base and head medians of a metric.
func gateMedians(rep *report.Report, name string, m *metric.Metric) string {
	for _, s := range rep.Summary {
		if s.Name == name {
			return m.Format(s.Base) + " → " + m.Format(s.Head)
		}
	}
	return "—"
}

// mainHistoryCharts draws each metric of main's history as an SVG chart
// for report.html. chart.SVG escapes every text it is given, so its
// output is trusted HTML.
func mainHistoryCharts(h *report.MainHistory) template.HTML {
	var b strings.Builder
	for _, mm := range h.Metrics {
		s := chart.Series{Title: mm.Name + " (" + mm.Unit + ")", Unit: mm.Unit}
		if !mm.SameMachine {
			s.Title += ", measured on another machine"
		}
		for i, v := range mm.Medians {
			label := ""
			if i < len(mm.Commits) && len(mm.Commits[i]) >= 7 {
				label = mm.Commits[i][:7]
			}
			s.Points = append(s.Points, chart.Point{Label: label, Median: v, Low: v, High: v})
		}
		b.WriteString(chart.SVG(s, 640, 200))
	}
	return template.HTML(b.String()) //nolint:gosec // chart.SVG escapes all text
}
