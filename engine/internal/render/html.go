package render

import (
	_ "embed"
	"html/template"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

//go:embed report.html.tmpl
var htmlTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"title":        metricTitle,
	"value":        func(m report.Metric, v float64) string { return metric.Of(m).Format(v) },
	"change":       func(m report.Metric, v float64) string { return metric.Of(m).FormatChange(v) },
	"interval":     func(m report.Metric) string { return metric.Of(m).FormatInterval(m.CI[0], m.CI[1]) },
	"ruledOut":     ruledOut,
	"median":       func(md report.Median) string { return metric.OfMedian(md).Format(md.Head) },
	"medianOf":     func(md report.Median, v float64) string { return metric.OfMedian(md).Format(v) },
	"medDelta":     func(md report.Median) string { return metric.OfMedian(md).FormatChange(md.Delta) },
	"epNote":       func() string { return endpointsNote },
	"pct":          metric.Percent,
	"pvalue":       metric.PValue,
	"detect":       detectable,
	"num":          metric.Number,
	"signed":       metric.Signed,
	"method":       Method,
	"latency":      LatencyNote,
	"rounds":       roundsSection,
	"main":         mainHistoryCharts,
	"pNote":        func() string { return pNote },
	"ruledOutNote": func() string { return ruledOutNote },
	"ocRows":       ocRows,
}).Parse(htmlTemplate))

// ocRow is one gating metric's operating characteristic as the page shows
// it: each point's step (a multiple of the threshold), change and share.
type ocRow struct {
	Name   string
	Points []ocCell
}

type ocCell struct{ Step, Change, Caught string }

// ocRows are the rows of the page's operating-characteristic table, one
// per gating metric that has one (report.Metric.OC); all share the steps.
func ocRows(rep *report.Report) []ocRow {
	var rows []ocRow
	for _, m := range rep.Metrics {
		if len(m.OC) == 0 {
			continue
		}
		c := metric.Of(m)
		row := ocRow{Name: m.Name}
		for _, p := range m.OC {
			row.Points = append(row.Points, ocCell{
				Step:   metric.Number(p.Change/m.Threshold) + "× threshold",
				Change: c.FormatChange(p.Change),
				Caught: metric.Percent(p.Caught),
			})
		}
		rows = append(rows, row)
	}
	return rows
}

// HTML renders the self-contained report page: no request leaves it (no
// scripts, styles or fonts from elsewhere), and html/template escapes every
// string, including the flame graph data handed to the inline script.
// html/template keeps Unicode format characters (category Cf, invisible
// and bidirectional controls) in untrusted names; the page's own text has
// none, so they are dropped from the whole page.
func HTML(rep *report.Report) (string, error) {
	var b strings.Builder
	if err := page.Execute(&b, rep); err != nil {
		return "", err
	}
	return removeFormat(b.String()), nil
}

// metricTitle is a metric's name on the page in the catalog's words, as
// the comment says it ("CPU per request"); a name the catalog does not
// know stays as the report has it (html/template escapes it).
func metricTitle(name string) string {
	if t := catalogTitle(name); t != "" {
		return UpperFirst(t)
	}
	return name
}
