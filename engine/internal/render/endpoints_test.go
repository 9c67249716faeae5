package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// endpointsReport is the regression report of a mix of two request lines
// in which only the search got slower: by 30% at the median and beyond,
// which the whole mix shows as about 4%.
func endpointsReport() *report.Report {
	rep := regressionReport()
	rep.Build.Base.Revision, rep.Build.Head.Revision = "0123456789abcdef", "fedcba9876543210"
	latency := func(name string, base, head, delta, low, high, p float64, outcome string) report.Metric {
		return report.Metric{Name: name, Unit: "ms", Scale: "relative", Base: base, Head: head, Delta: delta, CI: [2]float64{low, high},
			CILevel: 0.98, P: p, PImprovement: 1 - p, Outcome: outcome, Threshold: 0.1, Pairs: 10, Level: 0.01}
	}
	errors := report.Metric{Name: "errors", Unit: "ratio", Scale: "absolute", Outcome: "unchanged", CILevel: 0.98, P: 1, PImprovement: 1, Threshold: 0.001, Pairs: 10, Level: 0.01}
	rep.Endpoints = []report.Endpoint{
		{Method: "GET", Path: "/search?q=alpha", Pairs: 10, BaseRequests: 750, HeadRequests: 750,
			Metrics: []report.Metric{
				latency("latency_p50", 0.41, 0.533, 0.3, 0.27, 0.33, 0.000977, "regression"),
				latency("latency_p90", 0.62, 0.81, 0.31, 0.26, 0.36, 0.000977, "regression"),
				latency("latency_p99", 1.1, 1.45, 0.32, 0.2, 0.45, 0.00195, "regression"),
				errors,
			},
			Summary: []report.Median{{Name: "throughput", Unit: "req/s", Base: 150, Head: 150, BaseRuns: 10, HeadRuns: 10}}},
		{Method: "POST", Path: "/order", Pairs: 10, BaseRequests: 750, HeadRequests: 750,
			Metrics: []report.Metric{
				latency("latency_p50", 0.35, 0.351, 0.003, -0.01, 0.015, 0.35, "unchanged"),
				latency("latency_p90", 0.5, 0.502, 0.004, -0.02, 0.03, 0.4, "unchanged"),
				latency("latency_p99", 0.9, 0.93, 0.03, -0.08, 0.16, 0.3, "inconclusive"),
				errors,
			},
			Summary: []report.Median{{Name: "throughput", Unit: "req/s", Base: 150, Head: 149.9, Delta: -0.0007, BaseRuns: 10, HeadRuns: 10}}},
	}
	return rep
}

func TestMarkdownEndpoints(t *testing.T) {
	rep := realReport(t, "endpoint")
	md := Markdown(rep)
	golden(t, "endpoints.md", md)
	// The planted route's regression is on the first screen, whatever the
	// verdict.
	if !strings.Contains(md, "** (reported only): ") || !strings.Contains(md, "`GET /report`: median latency +") {
		t.Errorf("the first screen does not say /report regressed:\n%s", md)
	}
}

func TestHTMLEndpoints(t *testing.T) {
	page, err := HTML(realReport(t, "endpoint"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "endpoints.html", page)
}

// TestEndpointsSectionOnlyWithSeveralLines: with one request line the
// metrics table is that line, and a report written before endpoints
// existed has none; neither shows the section.
func TestEndpointsSectionOnlyWithSeveralLines(t *testing.T) {
	rep := endpointsReport()
	for _, tt := range []struct {
		name      string
		endpoints []report.Endpoint
	}{
		{"none", nil},
		{"one", rep.Endpoints[:1]},
	} {
		rep.Endpoints = tt.endpoints
		if s := endpointsSection(rep); s != "" {
			t.Errorf("%s: endpoints section %q, want none", tt.name, s)
		}
		page, err := HTML(rep)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(page, `id="endpoints"`) {
			t.Errorf("%s: the page has an endpoints table", tt.name)
		}
	}
}

// TestEndpointsEscapeRequestLines: a request line comes from the pull
// request's perfgate.yml, so it is untrusted in the comment and the page.
func TestEndpointsEscapeRequestLines(t *testing.T) {
	rep := endpointsReport()
	rep.Endpoints[1].Method = "POST"
	rep.Endpoints[1].Path = "/x?a=</code></sub></td></details><script>alert(1)</script>|@octocat #1 [l](http://x.example)\n## h\u202E"
	rep.Endpoints[1].Metrics[0].Name = "<img src=x onerror=alert(1)>"
	section := endpointsSection(rep)
	requireSafe(t, section, nil, "/x?a=</code></sub></td></details><script>alert(1)</script>|@octocat #1 [l](http://x.example) ## h")
	if slices.Index(render(t, section).tags, "details") < 0 || len(slices.DeleteFunc(render(t, section).tags, func(s string) bool { return s != "details" })) != 1 {
		t.Error("a request line opened or closed a <details>")
	}
	page, err := HTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "<script>alert(1)") || strings.Contains(page, "<img src=x") {
		t.Error("a request line reached the page unescaped")
	}
}

// TestReadReportEndpoints: endpoints survive report.json and back, and a
// hostile copy with absurdly many is refused before it is rendered.
func TestReadReportEndpoints(t *testing.T) {
	rep := endpointsReport()
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadReport(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := endpointsSection(read), endpointsSection(rep); got != want {
		t.Errorf("endpoints read back render differently:\n%s\nwant\n%s", got, want)
	}
	for i := 0; i < 2000; i++ {
		rep.Endpoints = append(rep.Endpoints, rep.Endpoints[0])
	}
	data, _ = json.Marshal(rep)
	if _, err := ReadReport(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "endpoints") {
		t.Errorf("2002 endpoints: %v, want refused", err)
	}
}
