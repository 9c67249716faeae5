package trend

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/chart"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/render"
)

// pageHTML is index.html of the trend output: one chart per series with
// its entries, their spread, the steps and the confirmed commits. The
// chart package escapes every text.
func pageHTML(t *Trend) string {
	intro := []string{
		fmt.Sprintf("%d history entries, %d valid. Alarm: %s. %s", t.Entries, t.Used, t.Alarm.State, t.Alarm.Title),
		"Each dot is one nightly recording's median over its runs, the band its runs' range. Dashed vertical lines are suspected steps; solid ones were confirmed by a paired gate or a paired night and name the commit. CPU and latency series with paired nights take their steps from those nights (their medians here still move with the machine); the job summary shows how the paired nights compound.",
	}
	intro = append(intro, t.Warnings...)
	charts := make([]chart.Series, len(t.Series))
	for i, s := range t.Series {
		charts[i] = chartOf(s)
	}
	return chart.Page("perfgate trend: "+t.Config, intro, charts)
}

// chartOf is a series as the chart package draws it.
func chartOf(s Series) chart.Series {
	c := chart.Series{Title: fmt.Sprintf("%s (%s) — %s", s.Metric, s.Unit, s.MachineDescription), Unit: s.Unit}
	if m, ok := metric.Lookup(s.Metric); ok {
		c.Quantity = render.UpperFirst(m.Title)
		c.Title = fmt.Sprintf("%s (%s) on %s", c.Quantity, s.Metric, s.MachineDescription)
	}
	for _, p := range s.Points {
		c.Points = append(c.Points, chart.Point{Label: short(p.Commit), Time: p.Time, Median: p.Median, Low: p.Low, High: p.High})
	}
	for _, st := range s.Steps {
		mark := chart.Mark{Index: st.Index, Label: fmt.Sprintf("%s p=%s", changeOf(s.Metric, st.Magnitude), metric.PValue(st.P))}
		if c := st.Confirmation; c != nil && c.Status == history.Confirmed {
			mark.Confirmed, mark.Commit = true, short(c.Commit)
		}
		c.Marks = append(c.Marks, mark)
	}
	return c
}
