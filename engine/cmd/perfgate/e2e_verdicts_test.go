package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// metricOutcome finds a metric's outcome in a report.
func metricOutcome(rep *report.Report, name string) string {
	for _, m := range rep.Metrics {
		if m.Name == name {
			return m.Outcome
		}
	}
	return "missing"
}

func hasHint(rep *report.Report, rule string) bool {
	for _, h := range rep.Hints {
		if h.Rule == rule {
			return true
		}
	}
	return false
}

// TestGateCPURegressionNamesRegexp: compiling a regexp per request fails
// the gate on CPU (and allocations), names regexp compilation among the
// CPU deltas and fires the regexp hint.
func TestGateCPURegressionNamesRegexp(t *testing.T) {
	g := runGateCommand(t, writeConfig(t, decisiveExperiment), exampleService(t), regressedHead(t, "cpu-regexp.patch"))
	if g.code != 1 || g.report == nil || g.report.Verdict != "regression" {
		t.Fatalf("exit %d, want 1 with verdict regression", g.code)
	}
	if got := metricOutcome(g.report, "cpu"); got != "regression" {
		t.Errorf("cpu outcome %s, want regression", got)
	}
	named := false
	for _, f := range g.report.Functions {
		named = named || (f.Profile == "cpu" && f.Delta > 0 && len(f.Name) > 7 && f.Name[:7] == "regexp.")
	}
	if !named {
		t.Error("no regexp function among the CPU deltas")
	}
	if !hasHint(g.report, "regexp-compile-per-request") {
		t.Errorf("hints %+v lack regexp-compile-per-request", g.report.Hints)
	}
	checkEndpoints(t, g)
}

// checkEndpoints: the regexp is compiled on /search, so both search lines'
// median latency regresses; every line is in report.json and report.md,
// reported and never gating. The order's latency is not checked: the
// compiles' garbage and CPU slow every request of head's process (measured
// +92% at p50 for /order against +162% and +212% for the searches, about
// +0.8 ms for each).
func checkEndpoints(t *testing.T, g gateResult) {
	t.Helper()
	if len(g.report.Endpoints) != 3 {
		t.Fatalf("%d endpoints, want one per request line of the config (3)", len(g.report.Endpoints))
	}
	p50 := map[string]report.Metric{}
	for _, e := range g.report.Endpoints {
		if e.Pairs < 6 || e.BaseRequests == 0 {
			t.Errorf("%s %s: %d pairs, %v requests a window", e.Method, e.Path, e.Pairs, e.BaseRequests)
		}
		for _, m := range e.Metrics {
			if m.Gates {
				t.Errorf("%s %s: %s gates", e.Method, e.Path, m.Name)
			}
			if m.Name == "latency_p50" {
				p50[e.Method+" "+e.Path] = m
			}
		}
	}
	if _, ok := p50["POST /order"]; !ok {
		t.Error("POST /order has no latency_p50")
	}
	for _, line := range []string{"GET /search?q=alpha", "GET /search?q=steel"} {
		if m := p50[line]; m.Outcome != "regression" {
			t.Errorf("%s p50 %s %+.1f%%, want a regression", line, m.Outcome, 100*m.Delta)
		}
	}
	md, err := os.ReadFile(filepath.Join(g.out, "report.md"))
	if err != nil || !strings.Contains(string(md), "<details><summary>Per endpoint (3 request lines") {
		t.Errorf("report.md has no per-endpoint section (%v)", err)
	}
	t.Logf("per endpoint:\n%s", endpointsTable(string(md)))
}

// endpointsTable is report.md's folded per-endpoint section, for the log.
func endpointsTable(md string) string {
	start := strings.Index(md, "<details><summary>Per endpoint")
	if start < 0 {
		return ""
	}
	end := strings.Index(md[start:], "</details>")
	return md[start : start+end]
}

// TestGateImprovementPassesAsImprovement runs the regression backwards:
// base has the per-request Sprintf, head does not. The CPU threshold is
// the widest allowed, 100%, so that this shared machine's CPU noise cannot
// make the verdict inconclusive: at 50% a fresh-clone CI once saw CPU/req
// range from 195 to 428 µs within six 1 s pairs (CI +8.6% to +52.3%).
func TestGateImprovementPassesAsImprovement(t *testing.T) {
	cfg := strings.Replace(decisiveExperiment, "  alpha: 0.1\n", "  alpha: 0.1\n  cpu: 100%\n", 1)
	g := runGateCommand(t, writeConfig(t, cfg), regressedHead(t, "alloc-sprintf.patch"), exampleService(t))
	if g.code != 0 || g.report == nil {
		t.Fatalf("exit %d, want 0", g.code)
	}
	if got := metricOutcome(g.report, "allocs"); got != "improvement" {
		t.Errorf("allocs outcome %s, want improvement", got)
	}
	if g.report.Verdict != report.Improvement {
		t.Errorf("verdict %s (%s), want improvement", g.report.Verdict, g.report.Reason)
	}
}

// TestGateAAComparisonDoesNotFail gates the example service against itself,
// relinked every round as a user's gate is: never a regression, and no
// hint.
func TestGateAAComparisonDoesNotFail(t *testing.T) {
	g := runGateCommand(t, writeConfig(t, relinkedExperiment), exampleService(t), regressedHead(t, ""))
	if g.code != 0 || g.report == nil || g.report.Verdict == report.Regression {
		t.Fatalf("A/A: exit %d, verdict %v", g.code, g.report)
	}
	if len(g.report.Hints) > 0 {
		t.Errorf("A/A fired hints: %+v", g.report.Hints)
	}
}
