package render

import (
	_ "embed"
	"fmt"
	"html/template"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

//go:embed report.html.tmpl
var htmlTemplate string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"change": verdict.FormatChange,
	"value":  verdict.Value,
	"pct":    verdict.Percent,
	"detect": verdict.Detectable,
	"num":    func(v float64) string { return fmt.Sprintf("%.4g", v) },
	"signed": func(v float64) string { return fmt.Sprintf("%+.4g", v) },
}).Parse(htmlTemplate))

// HTML renders the self-contained report page: no request leaves it (no
// scripts, styles or fonts from elsewhere), and html/template escapes every
// string, including the flame graph data handed to the inline script.
func HTML(rep *report.Report) (string, error) {
	var b strings.Builder
	if err := page.Execute(&b, rep); err != nil {
		return "", err
	}
	return b.String(), nil
}
