package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestMarkdownShowsWhereMainStands(t *testing.T) {
	rep := regressionReport()
	if strings.Contains(Markdown(rep), "Where main stands") {
		t.Fatal("a gate without history shows main's trend")
	}
	rep.MainHistory = &report.MainHistory{Config: "perfgate<script>", Entries: 31, Metrics: []report.MainMetric{
		{Name: "cpu", Unit: "µs/req", Medians: []float64{40, 41, 40, 44, 44}, SameMachine: true, RunSpread: 0.03, Resolvable: 0.031},
		{Name: "allocs", Unit: "allocs/req", Medians: []float64{35, 35, 35}, SameMachine: false},
	}}
	md := Markdown(rep)
	for _, want := range []string{"Where main stands", "| cpu | ▁▃▁██ |", "≈ 3.1%", "| allocs | ▄▄▄ (another machine) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Errorf("the history's config name reached the comment unescaped")
	}
}

func TestHTMLChartsMainsHistory(t *testing.T) {
	rep := regressionReport()
	rep.MainHistory = &report.MainHistory{Config: "perfgate", Entries: 3, Metrics: []report.MainMetric{
		{Name: "cpu", Unit: "µs/req", Medians: []float64{40, 41, 44}, Commits: []string{"aaaaaaa1", "bbbbbbb2", "<img src=x onerror=alert(1)>"}, SameMachine: true},
	}}
	page, err := HTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "Where main stands") || !strings.Contains(page, "<svg") || strings.Contains(page, "<img") {
		t.Errorf("report.html: chart missing or unescaped")
	}
}
