package render

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Limits on what the Rounds section draws, so a long experiment (or a
// hostile report) cannot make the page huge.
const (
	maxDrawnRounds  = 100
	maxDrawnSeconds = 600
	panelsPerRow    = 8
)

// Colours of the Rounds charts; invalid rounds are drawn in grey.
const (
	baseColour     = "#0969da"
	headColour     = "#bc4c00"
	ratioColour    = "#1f2328"
	intervalColour = "#8250df"
	greyColour     = "#afb8c1"
)

// roundsSection is report.html's "Rounds": per round, CPU per request of
// base and head second by second (in a duet both sides share the machine's
// noise, so the lines move together), and each round's change head/base
// with the estimate, its interval and the threshold, for CPU and, when
// measured, allocations. It is inline SVG (no script, nothing fetched)
// with a <title> on every round and a table of the same figures. Invalid
// rounds are grey, their reasons in their title. Reports without
// per-second samples get the charts they have data for; a recording or a
// report without rounds gets nothing.
func roundsSection(rep *report.Report) template.HTML {
	rounds := roundsOf(rep.Runs)
	if rep.Recording() || len(rounds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<h2 id=\"rounds\">Rounds</h2>\n")
	if len(rounds) > maxDrawnRounds {
		fmt.Fprintf(&b, "<p>The first %d of %d rounds are drawn; report.json has them all.</p>\n", maxDrawnRounds, len(rounds))
		rounds = rounds[:maxDrawnRounds]
	}
	duet := designOf(rep) == designDuet
	if chart := secondsChart(rep, rounds); chart != "" {
		b.WriteString("<h3>CPU per request, second by second</h3>\n")
		if duet {
			b.WriteString("<p>One panel per round: the CPU time per request of base and head in each second of the window, on one scale. Base and head ran at the same time on the same CPUs, so what slows the machine slows both and their lines move together; the gate compares them within each round.</p>\n")
		} else {
			b.WriteString("<p>One panel per pair: the CPU time per request of base and head in each second of their windows, on one scale. The two runs of a pair ran one after the other.</p>\n")
		}
		b.WriteString(chart)
	}
	for _, c := range []*metric.Metric{metric.CPU, metric.Allocs} {
		if chart := ratioChart(rep, rounds, c); chart != "" {
			fmt.Fprintf(&b, "<h3>%s: change per round</h3>\n", label(c))
			b.WriteString(chart)
		}
	}
	b.WriteString(roundsTable(rounds, duet))
	return template.HTML(b.String())
}

// label names a metric in a chart's heading.
func label(c *metric.Metric) string {
	switch c {
	case metric.CPU:
		return "CPU per request"
	case metric.Allocs:
		return "Allocations per request"
	}
	return c.Name
}

// secondPoint is one second of a run: where it falls in the window (0 to
// 1) and its CPU time per request in µs.
type secondPoint struct{ x, cpu float64 }

// perSecond is a run's CPU per request in each interval between its
// samples, Δcpu_ns/Δrequests, placed at the interval's middle. Intervals
// without requests have none.
func perSecond(run *report.Run, windowMs float64) []secondPoint {
	if run == nil || windowMs <= 0 {
		return nil
	}
	s := run.Seconds
	stride := 1 + len(s)/maxDrawnSeconds
	var out []secondPoint
	for i := stride; i < len(s); i += stride {
		prev, cur := s[i-stride], s[i]
		if cur.Requests <= prev.Requests {
			continue
		}
		cpu := float64(cur.CPUNanos-prev.CPUNanos) / float64(cur.Requests-prev.Requests) / 1e3
		x := min(max((prev.OffsetMs+cur.OffsetMs)/2/windowMs, 0), 1)
		out = append(out, secondPoint{x, cpu})
	}
	return out
}

// secondsChart draws the per-second CPU per request of both sides, one
// small panel per round on one scale; "" when no run has samples.
func secondsChart(rep *report.Report, rounds []round) string {
	windowMs := float64(rep.Config.Load.Duration.Std().Milliseconds())
	for _, r := range rounds {
		for _, run := range []*report.Run{r.base, r.head} {
			if run != nil && len(run.Seconds) > 0 {
				windowMs = max(windowMs, run.Seconds[len(run.Seconds)-1].OffsetMs)
			}
		}
	}
	series := make([][2][]secondPoint, len(rounds))
	lo, hi := math.Inf(1), math.Inf(-1)
	scale := func(onlyValid bool) {
		for i, r := range rounds {
			if onlyValid && !r.valid() {
				continue
			}
			for _, side := range series[i] {
				for _, p := range side {
					lo, hi = min(lo, p.cpu), max(hi, p.cpu)
				}
			}
		}
	}
	sampled := false
	for i, r := range rounds {
		series[i] = [2][]secondPoint{perSecond(r.base, windowMs), perSecond(r.head, windowMs)}
		sampled = sampled || len(series[i][0]) > 0 || len(series[i][1]) > 0
	}
	if !sampled {
		return ""
	}
	// Invalid rounds (a crashed or starved run) can be far off; the
	// scale is the valid rounds' unless there are none.
	if scale(true); math.IsInf(lo, 1) {
		scale(false)
	}
	ticks, lo, hi := niceAxis(lo, hi, 4)

	const (
		panelW, panelH = 120.0, 72.0
		gapX, gapY     = 12.0, 34.0
		left, top      = 52.0, 34.0
	)
	cols := min(len(rounds), panelsPerRow)
	rows := (len(rounds) + cols - 1) / cols
	width := left + float64(cols)*panelW + float64(cols-1)*gapX + 8
	height := top + float64(rows)*(panelH+gapY) - gapY + 22

	var b strings.Builder
	fmt.Fprintf(&b, "<svg class=\"chart\" role=\"img\" aria-labelledby=\"seconds-title\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\">\n", n1(width), n1(height), n1(width), n1(height))
	b.WriteString("<title id=\"seconds-title\">CPU time per request (µs) of base and head in each second of each round's window</title>\n")
	legendLine(&b, left, 12, baseColour, "", "base")
	legendLine(&b, left+70, 12, headColour, "", "head")
	fmt.Fprintf(&b, "<text x=\"%s\" y=\"16\">µs of CPU per request, each second of the window</text>\n", n1(left+140))
	for i, r := range rounds {
		col, row := i%cols, i/cols
		x0 := left + float64(col)*(panelW+gapX)
		y0 := top + float64(row)*(panelH+gapY)
		y := func(v float64) float64 { return y0 + panelH - (min(max(v, lo), hi)-lo)/(hi-lo)*panelH }
		fill, name := "#ffffff", fmt.Sprintf("round %d", r.number)
		if !r.valid() {
			fill, name = "#f6f8fa", name+": invalid"
		}
		fmt.Fprintf(&b, "<g><title>%s</title>\n", roundTitle(r))
		fmt.Fprintf(&b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"#d0d7de\"/>\n", n1(x0), n1(y0), n1(panelW), n1(panelH), fill)
		for _, t := range ticks {
			fmt.Fprintf(&b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#eaeef2\"/>\n", n1(x0), n1(x0+panelW), n1(y(t)), n1(y(t)))
			if col == 0 {
				fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n", n1(x0-4), n1(y(t)+4), tickLabel(t, ticks))
			}
		}
		if col == 0 {
			// The time axis, once per row: each panel is one window.
			fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\">0</text><text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
				n1(x0), n1(y0+panelH+12), n1(x0+panelW), n1(y0+panelH+12), time.Duration(windowMs*float64(time.Millisecond)).Round(time.Second))
		}
		fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\"%s>%s</text>\n", n1(x0), n1(y0-5), greyText(r), name)
		for side, points := range series[i] {
			colour := baseColour
			if side == 1 {
				colour = headColour
			}
			if !r.valid() {
				colour = greyColour
			}
			var pts []string
			for _, p := range points {
				pts = append(pts, n1(x0+p.x*panelW)+","+n1(y(p.cpu)))
			}
			if len(pts) > 0 {
				fmt.Fprintf(&b, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", strings.Join(pts, " "), colour)
			}
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// ratioChart draws each round's change head/base of c (a point per
// round), the metric's estimate as a line in its interval's band, zero,
// and the threshold both ways; "" when no round measured c on both sides.
func ratioChart(rep *report.Report, rounds []round, c *metric.Metric) string {
	changes := make([]*float64, len(rounds))
	lo, hi := 0.0, 0.0
	anyValid := false
	for i, r := range rounds {
		if lr, ok := r.logRatio(c); ok {
			v := 100 * math.Expm1(lr)
			changes[i] = &v
			if r.valid() {
				lo, hi, anyValid = min(lo, v), max(hi, v), true
			}
		}
	}
	if !anyValid {
		return ""
	}
	m, compared := findMetric(rep, c)
	compared = compared && finite(m.Delta, m.CI[0], m.CI[1], m.Threshold)
	threshold := c.Threshold(rep.Config.Gate)
	if compared {
		threshold = m.Threshold
		lo, hi = min(lo, 100*m.CI[0], 100*m.Delta), max(hi, 100*m.CI[1], 100*m.Delta)
	}
	if !finite(threshold) {
		threshold = 0
	}
	if threshold > 0 {
		lo, hi = min(lo, -100*threshold), max(hi, 100*threshold)
	}
	ticks, lo, hi := niceAxis(lo, hi, 5)

	const (
		left, top, plotH, bottom = 52.0, 46.0, 180.0, 34.0
	)
	step := max(8, min(32, 600/float64(len(rounds))))
	plotW := max(420, step*float64(len(rounds)))
	width, height := left+plotW+16, top+plotH+bottom
	x := func(i int) float64 { return left + plotW/float64(len(rounds))*(float64(i)+0.5) }
	y := func(v float64) float64 { return top + plotH - (min(max(v, lo), hi)-lo)/(hi-lo)*plotH }
	id := c.Name + "-rounds-title"

	var b strings.Builder
	fmt.Fprintf(&b, "<svg class=\"chart\" role=\"img\" aria-labelledby=\"%s\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\">\n", id, n1(width), n1(height), n1(width), n1(height))
	fmt.Fprintf(&b, "<title id=\"%s\">%s: change head/base in each round (percent)", id, label(c))
	if compared {
		fmt.Fprintf(&b, "; estimate %s, interval %s (%s)", c.FormatChange(m.Delta), c.FormatInterval(m.CI[0], m.CI[1]), metric.Percent(m.CILevel))
	}
	if threshold > 0 {
		fmt.Fprintf(&b, "; threshold ±%s", c.FormatChange(threshold)[1:])
	}
	b.WriteString("</title>\n")
	// Legend, two rows above the plot.
	fmt.Fprintf(&b, "<circle cx=\"%s\" cy=\"12\" r=\"4\" fill=\"%s\"/><text x=\"%s\" y=\"16\">head/base in one round</text>\n", n1(left+4), ratioColour, n1(left+28))
	if compared {
		legendLine(&b, left+170, 12, intervalColour, "", "estimate "+c.FormatChange(m.Delta))
		fmt.Fprintf(&b, "<rect x=\"%s\" y=\"24\" width=\"22\" height=\"10\" fill=\"%s\" fill-opacity=\"0.15\"/><text x=\"%s\" y=\"33\">interval %s (%s)</text>\n",
			n1(left), intervalColour, n1(left+28), c.FormatInterval(m.CI[0], m.CI[1]), metric.Percent(m.CILevel))
	}
	if threshold > 0 {
		legendLine(&b, left+250, 29, "#cf222e", "5 3", "threshold ±"+c.FormatChange(threshold)[1:])
	}
	// Axes and grid.
	for _, t := range ticks {
		fmt.Fprintf(&b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#eaeef2\"/>\n", n1(left), n1(left+plotW), n1(y(t)), n1(y(t)))
		fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s%%</text>\n", n1(left-4), n1(y(t)+4), signedTick(t, ticks))
	}
	fmt.Fprintf(&b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#d0d7de\"/>\n", n1(left), n1(top), n1(plotW), n1(plotH))
	// Invalid rounds: a grey column whose title says why.
	for i, r := range rounds {
		if !r.valid() {
			fmt.Fprintf(&b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f6f8fa\"><title>%s</title></rect>\n",
				n1(x(i)-plotW/float64(len(rounds))/2), n1(top), n1(plotW/float64(len(rounds))), n1(plotH), roundTitle(r))
		}
	}
	if compared {
		fmt.Fprintf(&b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" fill-opacity=\"0.15\"><title>interval %s (%s)</title></rect>\n",
			n1(left), n1(y(100*m.CI[1])), n1(plotW), n1(max(y(100*m.CI[0])-y(100*m.CI[1]), 1)), intervalColour, c.FormatInterval(m.CI[0], m.CI[1]), metric.Percent(m.CILevel))
	}
	fmt.Fprintf(&b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#57606a\"/>\n", n1(left), n1(left+plotW), n1(y(0)), n1(y(0)))
	if compared {
		fmt.Fprintf(&b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>estimate %s</title></line>\n",
			n1(left), n1(left+plotW), n1(y(100*m.Delta)), n1(y(100*m.Delta)), intervalColour, c.FormatChange(m.Delta))
	}
	if threshold > 0 {
		for _, t := range []float64{threshold, -threshold} {
			fmt.Fprintf(&b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#cf222e\" stroke-dasharray=\"5 3\"><title>threshold %s</title></line>\n",
				n1(left), n1(left+plotW), n1(y(100*t)), n1(y(100*t)), c.FormatChange(t))
		}
	}
	// The rounds, with their numbers below.
	every := int(math.Ceil(18 / (plotW / float64(len(rounds)))))
	for i, r := range rounds {
		if i%every == 0 {
			fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\"%s>%d</text>\n", n1(x(i)), n1(top+plotH+14), greyText(r), r.number)
		}
		v := changes[i]
		if v == nil {
			continue
		}
		title := fmt.Sprintf("round %d: %s", r.number, c.FormatChange(*v/100))
		fill := ratioColour
		if !r.valid() {
			title, fill = roundTitle(r), "none"
		}
		stroke := ratioColour
		if !r.valid() {
			stroke = greyColour
		}
		fmt.Fprintf(&b, "<circle cx=\"%s\" cy=\"%s\" r=\"4\" fill=\"%s\" stroke=\"%s\"><title>%s</title></circle>\n", n1(x(i)), n1(y(*v)), fill, stroke, title)
	}
	fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">round</text>\n", n1(left+plotW/2), n1(top+plotH+30))
	b.WriteString("</svg>\n")
	return b.String()
}

// roundsTable is the charts' figures as text: per round, each side's CPU
// per request over the window, the changes, and why a round was not
// compared.
func roundsTable(rounds []round, duet bool) string {
	var b strings.Builder
	b.WriteString("<details><summary>Figures per round</summary>\n<table id=\"rounds-table\">\n<tr><th>round</th><th>base CPU</th><th>head CPU</th><th>CPU change</th><th>allocs change</th>")
	if duet {
		b.WriteString("<th>started first</th><th>shared CPU busy</th>")
	}
	b.WriteString("<th>compared</th></tr>\n")
	for _, r := range rounds {
		class := ""
		if !r.valid() {
			class = " class=\"invalid\""
		}
		fmt.Fprintf(&b, "<tr%s><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>", class, r.number,
			sideFigure(r.base, metric.CPU), sideFigure(r.head, metric.CPU), roundChange(r, metric.CPU), roundChange(r, metric.Allocs))
		if duet {
			first, busy := "", ""
			for _, run := range []*report.Run{r.base, r.head} {
				if run != nil && run.Duet != nil {
					busy = metric.Percent(run.Duet.SharedCPUBusy)
					if run.Duet.StartedFirst {
						first = string(metric.SideOf(*run))
					}
				}
			}
			fmt.Fprintf(&b, "<td>%s</td><td>%s</td>", HTMLText(first), busy)
		}
		compared := "yes"
		if !r.valid() {
			compared = "no: " + escape(r.reason(), false, maxProse)
		}
		fmt.Fprintf(&b, "<td class=\"name\">%s</td></tr>\n", compared)
	}
	b.WriteString("</table>\n</details>\n")
	return b.String()
}

// sideFigure is a run's value of c, or "–".
func sideFigure(run *report.Run, c *metric.Metric) string {
	if run == nil {
		return "–"
	}
	if v, ok := c.Value(run.Figures); ok {
		return c.Format(v)
	}
	return "–"
}

// roundChange is the round's change of c, or "–".
func roundChange(r round, c *metric.Metric) string {
	if lr, ok := r.logRatio(c); ok {
		return c.FormatChange(math.Expm1(lr))
	}
	return "–"
}

// roundTitle is a round's tooltip: its figures, or why it was not
// compared (escaped: the reasons come from the run).
func roundTitle(r round) string {
	if !r.valid() {
		return fmt.Sprintf("round %d, not compared: %s", r.number, escape(r.reason(), false, maxProse))
	}
	return fmt.Sprintf("round %d: base %s, head %s (%s)", r.number,
		sideFigure(r.base, metric.CPU), sideFigure(r.head, metric.CPU), roundChange(r, metric.CPU))
}

// greyText is the attribute that greys a label of an invalid round.
func greyText(r round) string {
	if r.valid() {
		return ""
	}
	return " fill=\"#8c959f\""
}
