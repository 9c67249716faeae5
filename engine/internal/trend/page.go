package trend

import (
	"fmt"
	"math"

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
		"Each dot is one nightly recording's median over its runs, the band its runs' range. Dashed vertical lines are suspected steps; solid ones were confirmed by a paired gate or a paired night and name the commit. CPU and latency series with paired nights take their steps from those nights, whose medians still move with the machine: each such series has a second chart, its paired nights compounded.",
	}
	intro = append(intro, t.Warnings...)
	var charts []chart.Series
	for _, s := range t.Series {
		charts = append(charts, chartOf(s))
		if c, ok := chainChartOf(s); ok {
			charts = append(charts, c)
		}
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
		if st.Paired != nil && s.Detection == DetectPaired {
			continue // drawn on the chart of its paired nights
		}
		mark := chart.Mark{Index: st.Index, Label: fmt.Sprintf("%s p=%s", changeOf(s.Metric, st.Magnitude), metric.PValue(st.P))}
		if c := st.Confirmation; c != nil && c.Status == history.Confirmed {
			mark.Confirmed, mark.Commit = true, short(c.Commit)
		}
		c.Marks = append(c.Marks, mark)
	}
	return c
}

// chainChartOf is a series' paired nights compounded, as a chart: the
// change since the commit the first link was paired with, night by night,
// each night's whisker its own paired interval around the level of the
// night before. Nights that are no link are left out, as in the chain.
func chainChartOf(s Series) (chart.Series, bool) {
	if s.Chain == nil {
		return chart.Series{}, false
	}
	c := chart.Series{Unit: "%", Quantity: "change since " + short(s.Chain.From),
		PointLegend: "the nights compounded", RangeLegend: "that night's paired interval", ConfirmedLegend: "step confirmed by its night's duet (its commit)"}
	c.Title = fmt.Sprintf("%s: paired nights compounded, on %s", s.Metric, s.MachineDescription)
	if m, ok := metric.Lookup(s.Metric); ok {
		c.Title = fmt.Sprintf("%s (%s): paired nights compounded, on %s", render.UpperFirst(m.Title), s.Metric, s.MachineDescription)
	}
	at := map[int]int{} // series point → chart point
	level := 0.0        // log of the compounded ratio
	percent := func(log float64) float64 { return 100 * math.Expm1(log) }
	for _, j := range chainLinks(s.Points) {
		p, est := s.Points[j], s.Points[j].Paired
		if len(c.Points) == 0 {
			c.Points = append(c.Points, chart.Point{Label: short(s.Points[j-1].Commit), Time: s.Points[j-1].Time})
		}
		low, high := percent(level+math.Log1p(est.CI[0])), percent(level+math.Log1p(est.CI[1]))
		level += math.Log1p(est.Estimate)
		at[j] = len(c.Points)
		c.Points = append(c.Points, chart.Point{Label: short(p.Commit), Time: p.Time, Median: percent(level), Low: low, High: high})
	}
	for _, st := range s.Steps {
		i, ok := at[st.Index]
		if !ok || st.Paired == nil {
			continue
		}
		mark := chart.Mark{Index: i, Label: changeOf(s.Metric, st.Magnitude) + " that night"}
		if k := st.Confirmation; k != nil && k.Status == history.Confirmed {
			mark.Confirmed, mark.Commit = true, short(k.Commit)
		}
		c.Marks = append(c.Marks, mark)
	}
	return c, true
}
