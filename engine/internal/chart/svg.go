package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// Point is one entry of a series.
type Point struct {
	Label     string // short commit SHA
	Time      time.Time
	Median    float64
	Low, High float64 // the entry's runs' range
}

// Mark is a change point, drawn before Points[Index].
type Mark struct {
	Index     int
	Label     string
	Confirmed bool
	Commit    string
}

// Series is one chart.
type Series struct {
	Title string
	// Quantity names what the y axis measures ("CPU time per request");
	// the axis reads "Quantity (Unit)", or the unit alone without it.
	Quantity string
	Unit     string
	Points   []Point
	Marks    []Mark
	// PointLegend, RangeLegend and ConfirmedLegend say what a dot, its
	// whisker and a solid mark are, when not a night's median, its runs'
	// range and a step a paired gate confirmed (a chart of paired nights).
	PointLegend, RangeLegend, ConfirmedLegend string
}

// xAxisLabel says what a point is: the charts are of nightly recordings.
const xAxisLabel = "nightly recording (date, UTC)"

// Colours of what a chart draws, named by the legend.
const (
	medianColour    = "#1d4ed8"
	rangeColour     = "#93c5fd"
	suspectedColour = "#d97706"
	confirmedColour = "#dc2626"
)

// SVG draws s as a self-contained <svg> of w×h pixels: a title, a legend,
// the runs' range as whiskers, the medians as a line with tooltips, the
// marks (dashed when suspected, solid and labelled with the commit when
// confirmed), and both axes labelled. Every text is escaped: titles and
// labels come from outside.
func SVG(s Series, w, h int) string {
	const left, right, top, bottom = 70, 20, 58, 58
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`, w, h, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-weight="bold" font-size="14">%s</text>`, left, esc(s.Title))
	legend(&b, left, 38, s)
	if len(s.Points) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no entries</text></svg>`, left, h/2)
		return b.String()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		lo, hi = math.Min(lo, math.Min(p.Low, p.Median)), math.Max(hi, math.Max(p.High, p.Median))
	}
	if hi == lo {
		// A flat series (often all zeros: no errors, no leaks) sits in the
		// middle of a scale of its own size, or of 0 to 1.
		half := math.Abs(lo) * 0.05
		if half == 0 {
			half = 0.5
		}
		lo, hi = lo-half, hi+half
	}
	pad := (hi - lo) * 0.08
	lo, hi = lo-pad, hi+pad
	plotW, plotH := float64(w-left-right), float64(h-top-bottom)
	x := func(i int) float64 {
		if len(s.Points) == 1 {
			return float64(left) + plotW/2
		}
		return float64(left) + plotW*float64(i)/float64(len(s.Points)-1)
	}
	y := func(v float64) float64 { return float64(top) + plotH*(hi-v)/(hi-lo) }
	// Axes and y ticks.
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`, left, top, plotW, plotH)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/>`, left, float64(left)+plotW, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`, left-6, y(v)+4, esc(number(v)))
	}
	yLabel := s.Unit
	if s.Quantity != "" {
		yLabel = s.Quantity + " (" + s.Unit + ")"
	}
	fmt.Fprintf(&b, `<text x="14" y="%.1f" fill="#333" transform="rotate(-90 14 %.1f)" text-anchor="middle">%s</text>`, float64(top)+plotH/2, float64(top)+plotH/2, esc(yLabel))
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#333" text-anchor="middle">%s</text>`, float64(left)+plotW/2, h-bottom+34, esc(xAxisLabel))
	// X labels: first, middle and last entries' dates (and times when the
	// entries span less than two days), kept inside the plot's width.
	layout := "2006-01-02"
	if s.Points[len(s.Points)-1].Time.Sub(s.Points[0].Time) < 48*time.Hour {
		layout = "01-02 15:04"
	}
	for _, i := range uniq([]int{0, len(s.Points) / 2, len(s.Points) - 1}) {
		anchor := "middle"
		switch {
		case len(s.Points) == 1:
		case i == 0:
			anchor = "start"
		case i == len(s.Points)-1:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" fill="#555">%s</text>`, x(i), h-bottom+16, anchor, esc(s.Points[i].Time.UTC().Format(layout)))
	}
	// Marks.
	for _, m := range s.Marks {
		if m.Index <= 0 || m.Index >= len(s.Points) {
			continue
		}
		mx := (x(m.Index-1) + x(m.Index)) / 2
		colour, dash, label := suspectedColour, ` stroke-dasharray="5,4"`, m.Label
		if m.Confirmed {
			colour, dash = confirmedColour, ""
			label = m.Commit + " " + m.Label
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, mx, mx, top, float64(top)+plotH, colour, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="%s" text-anchor="middle">%s</text>`, mx, h-6, colour, esc(label))
	}
	// Ranges, line and dots.
	var line []string
	for i, p := range s.Points {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`, x(i), x(i), y(p.Low), y(p.High), rangeColour)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Median)))
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(line, " "), medianColour)
	for i, p := range s.Points {
		tip := fmt.Sprintf("%s %s: %s %s (%s–%s)", p.Label, p.Time.UTC().Format("2006-01-02"), number(p.Median), s.Unit, number(p.Low), number(p.High))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>`, x(i), y(p.Median), medianColour, esc(tip))
	}
	b.WriteString("</svg>")
	return b.String()
}

// legend draws, in one row from (x, y), a sample of each thing a chart
// shows with what it means.
func legend(b *strings.Builder, x, y int, s Series) {
	point, whisker, confirmed := "median of the night's runs", "range of its runs", "step confirmed by a paired gate (its commit)"
	for _, o := range []struct {
		to   *string
		from string
	}{{&point, s.PointLegend}, {&whisker, s.RangeLegend}, {&confirmed, s.ConfirmedLegend}} {
		if o.from != "" {
			*o.to = o.from
		}
	}
	items := []struct{ sample, text string }{
		{fmt.Sprintf(`<line x1="0" x2="18" y1="0" y2="0" stroke="%s" stroke-width="2"/><circle cx="9" cy="0" r="3" fill="%s"/>`, medianColour, medianColour), point},
		{fmt.Sprintf(`<line x1="9" x2="9" y1="-7" y2="7" stroke="%s" stroke-width="3"/>`, rangeColour), whisker},
		{fmt.Sprintf(`<line x1="9" x2="9" y1="-7" y2="7" stroke="%s" stroke-width="2" stroke-dasharray="3,2"/>`, suspectedColour), "suspected step"},
		{fmt.Sprintf(`<line x1="9" x2="9" y1="-7" y2="7" stroke="%s" stroke-width="2"/>`, confirmedColour), confirmed},
	}
	for _, it := range items {
		fmt.Fprintf(b, `<g transform="translate(%d %d)">%s<text x="24" y="4" fill="#333">%s</text></g>`, x, y, it.sample, esc(it.text))
		// About 6.2 px a character at 12 px sans-serif, and a gap.
		x += 24 + int(6.2*float64(len([]rune(it.text)))) + 24
	}
}

// Page is a self-contained HTML page of charts, with no scripts.
func Page(title string, intro []string, charts []Series) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>", esc(title))
	b.WriteString(`<style>body{font-family:sans-serif;margin:2em;max-width:1000px}figure{margin:1.5em 0}</style></head><body>`)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(title))
	for _, p := range intro {
		fmt.Fprintf(&b, "<p>%s</p>\n", esc(p))
	}
	for _, c := range charts {
		fmt.Fprintf(&b, "<figure>%s</figure>\n", SVG(c, 960, 360))
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

// number shows a value with three significant figures and an SI prefix
// for large ones.
func number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

func uniq(xs []int) []int {
	var out []int
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}
