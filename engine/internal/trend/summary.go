package trend

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/chart"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/render"
)

// sparklinePoints is how many of a series' latest medians the summary
// draws: a month of nightlies.
const sparklinePoints = 30

// summaryMarkdown is the job summary: a line per series with its latest
// medians as a sparkline (GitHub's job summary renders no SVG), then each
// step with its confirmation. Every text from the history is escaped.
func summaryMarkdown(t *Trend, links Links) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### perfgate trend: %s\n\n", render.Text(t.Config))
	fmt.Fprintf(&b, "%d history entries, %d valid. Steps are change points of the nightly medians (e-divisive means, permutation p ≤ %s, at least %s and %d entries on each side)",
		t.Entries, t.Used, metric.PValue(t.Settings.Alpha), metric.Percent(t.Settings.MinMagnitude), t.Settings.MinSegment)
	if t.Settings.Confirm {
		fmt.Fprintf(&b, ", each confirmed by a paired gate of its two commits and bisected with up to %d more gates.", t.Settings.Budget)
	} else {
		fmt.Fprint(&b, "; none was confirmed (run with --confirm).")
	}
	fmt.Fprintln(&b, " CPU and latency series hold one machine's entries each; allocation counts are compared across machines."+
		" A paired night (perfgate run --pair-with) measured its commit and the night before's at once: a night whose paired interval leaves no change out and moved at least the smallest step is a step by itself, confirmed by that duet;"+
		" CPU and latency series with paired nights are read from them alone.")
	fmt.Fprintf(&b, "\nAlarm: **%s**", t.Alarm.State)
	if t.Alarm.Title != "" {
		fmt.Fprintf(&b, ": %s", render.Text(t.Alarm.Title))
	}
	fmt.Fprintln(&b)
	if len(t.Series) > 0 {
		fmt.Fprintln(&b, "\n"+pageLine(links))
		fmt.Fprintln(&b, "\n| metric | machine | entries | latest | last 30 | spread | paired nights | steps |\n|---|---|---:|---:|---|---:|---|---|")
		for _, s := range t.Series {
			m, _ := metric.Lookup(s.Metric)
			last := s.Points[len(s.Points)-1]
			latest := metric.Number(last.Median) + " " + s.Unit
			if m != nil {
				latest = m.Format(last.Median)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", render.Text(s.Metric), render.Text(s.MachineDescription), len(s.Points),
				render.Text(latest), chart.Sparkline(tail(s.Points)), spreadText(s, m), chainCell(s, links), stepsCell(s, links))
		}
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintln(&b, "\nWarnings:")
		for _, w := range t.Warnings {
			fmt.Fprintf(&b, "- %s\n", render.Prose(w))
		}
	}
	return b.String()
}

// tail is the medians of a series' latest points.
func tail(points []Point) []float64 {
	if len(points) > sparklinePoints {
		points = points[len(points)-sparklinePoints:]
	}
	vs := make([]float64, len(points))
	for i, p := range points {
		vs[i] = p.Median
	}
	return vs
}

// stepsCell says each step of a series in a few words.
func stepsCell(s Series, links Links) string {
	if len(s.Steps) == 0 {
		return "none"
	}
	parts := make([]string, len(s.Steps))
	for i, st := range s.Steps {
		parts[i] = fmt.Sprintf("%s %s after %s", changeOf(s.Metric, st.Magnitude), st.Direction, commitRef(st.Before, links))
		parts[i] += " (" + confirmationWords(st.Confirmation, links) + ")"
	}
	return strings.Join(parts, "<br>")
}

// confirmationWords says what the paired gates found of a step.
func confirmationWords(c *history.Confirmation, links Links) string {
	switch {
	case c == nil:
		return "not checked"
	case c.Status == history.Confirmed && len(c.Narrowed) > 0:
		return fmt.Sprintf("confirmed %s, in %d commits", changeOf(c.Metric, c.Estimate), len(c.Narrowed))
	case c.Status == history.Confirmed:
		return fmt.Sprintf("confirmed %s at %s", changeOf(c.Metric, c.Estimate), commitRef(c.Commit, links))
	case c.Status == history.NotConfirmed:
		return "not confirmed: " + render.Prose(c.Reason)
	}
	// A reason is a sentence that ends with the fix (fetch-depth: 0):
	// Prose, not Text, which cuts at 160 characters.
	return "could not be checked: " + render.Prose(c.Reason)
}

// spreadText is a series' night-to-night spread in the metric's terms.
func spreadText(s Series, m *metric.Metric) string {
	if m == nil || m.Scale == metric.Relative {
		return "±" + metric.Percent(s.Spread)
	}
	return "±" + metric.Number(s.Spread)
}

// chainCell says how many paired nights a series has, how much they move
// and how far they compound to.
func chainCell(s Series, links Links) string {
	c := s.Chain
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%d, each ±%s; %s since %s (%s to %s)", c.Nights, metric.Percent(s.PairedSpread),
		signedPercent(c.Change), commitRef(c.From, links), signedPercent(c.CI[0]), signedPercent(c.CI[1]))
}

// signedPercent shows a fraction as a signed percentage with two
// decimals: paired nights move by tenths of a percent.
func signedPercent(v float64) string { return fmt.Sprintf("%+.2f%%", 100*v) }
