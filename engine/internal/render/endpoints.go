package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// endpointsNote says how to read the per-endpoint statistics: they never
// gate, and with many lines one of them can look significant by chance.
const endpointsNote = "Each request line of load.requests compared alone over the same pairs; reported only, never gating: tested at the look's level without correction across lines, so with many lines one can look significant by chance."

// endpointsSection is the per-endpoint comparison, folded: one row per
// quantity of each request line, the line named on its first row. A
// report with one line (or one written before endpoints existed) has
// none: the metrics table is that line. Request lines come from a
// pull request's perfgate.yml and are escaped like any untrusted text.
func endpointsSection(rep *report.Report) string {
	if len(rep.Endpoints) < 2 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>Per endpoint (%s)</summary>\n\n", endpointsSummary(rep.Endpoints))
	b.WriteString("| request | metric | base (median) | head (median) | Δ (paired) | confidence interval | p | outcome |\n|---|---|--:|--:|--:|--:|--:|---|\n")
	for _, e := range rep.Endpoints {
		request := fmt.Sprintf("%s<br><sub>%d pairs · %s req/window</sub>", Code(e.Method+" "+e.Path), e.Pairs, metric.Number(e.BaseRequests))
		if len(e.Metrics)+len(e.Summary) == 0 {
			fmt.Fprintf(&b, "| %s | | | | | | | not answered by both sides in any pair |\n", request)
			continue
		}
		for _, m := range e.Metrics {
			c := metric.Of(m)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s (%s) | %s | %s %s |\n",
				request, UpperFirst(titleOf(m)), shown(c, c.Format(m.Base)), shown(c, c.Format(m.Head)), shown(c, c.FormatChange(m.Delta)),
				shown(c, c.FormatInterval(m.CI[0], m.CI[1])), metric.Percent(m.CILevel), metric.PValue(m.ShownP()), outcomeIcon[m.Outcome], Text(m.Outcome))
			request = ""
		}
		for _, md := range e.Summary {
			c := metric.OfMedian(md)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | | | median only |\n",
				request, UpperFirst(titleOfName(md.Name)), shown(c, c.Format(md.Base)), shown(c, c.Format(md.Head)), shown(c, c.FormatChange(md.Delta)))
			request = ""
		}
	}
	fmt.Fprintf(&b, "\n_%s_\n\n</details>\n", endpointsNote)
	return b.String()
}

// endpointsSummary counts the lines and those with a regressed quantity,
// for the folded section's title.
func endpointsSummary(endpoints []report.Endpoint) string {
	regressed := 0
	for _, e := range endpoints {
		for _, m := range e.Metrics {
			if m.Outcome == "regression" {
				regressed++
				break
			}
		}
	}
	return fmt.Sprintf("%d request lines, %d regressed; reported only", len(endpoints), regressed)
}

// endpointsLine is the first screen's one line on the request lines that
// regressed on their own, on any verdict (a pass included: a +30% p50 on
// one route is diluted in the whole mix, and a reviewer should not have
// to open the fold to learn it). It is "" when none did.
func endpointsLine(rep *report.Report) string {
	var regressed []string
	for _, e := range rep.Endpoints {
		var changes []string
		for _, m := range e.Metrics {
			if m.Outcome != "regression" {
				continue
			}
			c := metric.Of(m)
			changes = append(changes, fmt.Sprintf("%s %s (likely %s)", titleOf(m), shown(c, c.FormatChange(m.Delta)), shown(c, c.FormatInterval(m.CI[0], m.CI[1]))))
		}
		if len(changes) > 0 {
			regressed = append(regressed, Code(e.Method+" "+e.Path)+": "+strings.Join(changes, ", "))
		}
	}
	if len(regressed) == 0 {
		return ""
	}
	subject := "One request line regressed on its own"
	if len(regressed) > 1 {
		subject = fmt.Sprintf("%d request lines regressed on their own", len(regressed))
	}
	return fmt.Sprintf("**%s** (reported only): %s.\n", subject, strings.Join(regressed, "; "))
}
