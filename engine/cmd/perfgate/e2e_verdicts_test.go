package main

import (
	"os"
	"path/filepath"
	"slices"
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
// range from 195 to 428 µs within six 1 s pairs (CI +8.6% to +52.3%). One
// profile round, not the default three: nothing here reads the profiles,
// and each round is a 6 s window (1,200 requests at 200 req/s).
func TestGateImprovementPassesAsImprovement(t *testing.T) {
	cfg := strings.Replace(decisiveExperiment, "  alpha: 0.1\n", "  alpha: 0.1\n  cpu: 100%\n", 1) + "profile_rounds: 1\n"
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

// slopeExperiment is ordersExperiment with about 100 orders in the
// warm-up (its two bursts that open the connections, load.PoolSize(200) =
// 50 orders each, and 2 paced) and 200 in each half of the window, so that
// the slope plants' cache of 200 receipts fills halfway through the
// window's first half. One build per
// side (the live heap's growth is not moved by a layout) and one profile
// round (the hints name the allocation site from it): ~25 s less a gate
// than relinking every round and three profile rounds.
var slopeExperiment = strings.NewReplacer("%s", "", "  warmup: 1s\n  duration: 1s\n", "  warmup: 10ms\n  duration: 2s\n").Replace(ordersExperiment) + "layout: build\nprofile_rounds: 1\n"

// TestGateHeapIsGrowthThatContinues: the heap metric is the live heap's
// growth in the second half of each window. A cache that fills up in the
// first half (slope/bounded-cache) is not a leak, although its growth
// there is far above gate.heap; a leak that starts only once that cache is
// full (slope/late-leak), gated against the bounded cache itself, is.
func TestGateHeapIsGrowthThatContinues(t *testing.T) {
	threshold := 64.0 * 1024 // gate.heap's default, per 1,000 requests
	t.Run("bounded cache", func(t *testing.T) {
		g := runGateCommand(t, writeConfig(t, slopeExperiment), exampleService(t), regressedHead(t, "slope/bounded-cache.patch"))
		if g.report == nil {
			t.Fatalf("exit %d without a report:\n%s", g.code, g.stderr)
		}
		if got := metricOutcome(g.report, "heap"); got == "regression" || got == "missing" {
			t.Errorf("heap outcome %s; a cache that stops growing is no leak", got)
		}
		if filled := medianFirstHalfHeap(g.report, "head"); filled < 4*threshold {
			t.Errorf("head's heap grew %.0f B/1k req in the windows' first halves; want the cache filling there (> %.0f), or this test shows nothing", filled, 4*threshold)
		}
		if hasHint(g.report, "heap-growth") || !hasHint(g.report, "heap-fills-up") {
			t.Errorf("hints %+v; want heap-fills-up, not heap-growth", g.report.Hints)
		}
	})
	t.Run("leak once the cache is full", func(t *testing.T) {
		g := runGateCommand(t, writeConfig(t, slopeExperiment), regressedHead(t, "slope/bounded-cache.patch"), regressedHead(t, "slope/late-leak.patch"))
		if g.code != 1 || g.report == nil || g.report.Verdict != report.Regression {
			t.Fatalf("exit %d, want 1 with verdict regression", g.code)
		}
		if got := metricOutcome(g.report, "heap"); got != "regression" {
			t.Errorf("heap outcome %s, want regression", got)
		}
		if !hasHint(g.report, "heap-growth") || hasHint(g.report, "heap-fills-up") {
			t.Errorf("hints %+v; want heap-growth, not heap-fills-up", g.report.Hints)
		}
	})
}

// medianFirstHalfHeap is the median over side's valid gating runs of the
// live heap's growth per 1,000 requests in the first half of the window.
func medianFirstHalfHeap(rep *report.Report, side string) float64 {
	var growth []float64
	for _, r := range rep.Runs {
		if r.Side == side && r.Valid && !r.ProfileRound && r.Figures.HeapGrowthFirstHalfBytesPer1k != nil {
			growth = append(growth, *r.Figures.HeapGrowthFirstHalfBytesPer1k)
		}
	}
	if len(growth) == 0 {
		return 0
	}
	slices.Sort(growth)
	return growth[len(growth)/2]
}
