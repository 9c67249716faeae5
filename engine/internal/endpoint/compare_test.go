package endpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// window is one run's results over two seconds: 100 searches and 100
// orders a second, answered in about searchLatency and orderLatency, the
// first orderErrors orders failing.
func window(searchLatency, orderLatency time.Duration, orderErrors int) []vegeta.Result {
	var rs []vegeta.Result
	for i := range 200 {
		at := time.Duration(i) * 10 * time.Millisecond
		// A spread of latencies around the line's own.
		jitter := time.Duration(i%10) * searchLatency / 20
		rs = append(rs, result(search, at, searchLatency+jitter, 200, ""))
		code := uint16(200)
		if i < orderErrors {
			code = 503
		}
		rs = append(rs, result(order, at+5*time.Millisecond, orderLatency+time.Duration(i%10)*orderLatency/20, code, ""))
	}
	return rs
}

// experiment writes pairs rounds of results under a results directory:
// head's searches take slowdown times base's, its orders are alike; each
// round's noise hits both sides alike, as in a duet.
func experiment(t *testing.T, pairs int, slowdown float64, headOrderErrors int) (string, []report.Run) {
	t.Helper()
	out := t.TempDir()
	var runs []report.Run
	for p := 1; p <= pairs; p++ {
		noise := 1 + 0.02*float64((p*7)%5-2) // the round's machine
		for _, side := range []string{"base", "head"} {
			searchLatency, errs := time.Duration(float64(2*time.Millisecond)*noise), 0
			orderLatency := time.Duration(float64(4*time.Millisecond) * noise)
			if side == "head" {
				searchLatency = time.Duration(float64(searchLatency) * slowdown)
				errs = headOrderErrors
				// What is left of the round's noise after the ratio.
				orderLatency = time.Duration(float64(orderLatency) * (1 + 0.004*float64((p*3)%5-2)))
			}
			r := report.Run{Side: side, Pair: p, Valid: true, Dir: filepath.Join(side, fmt.Sprintf("run-%02d", p))}
			writeResults(t, filepath.Join(out, r.Dir, load.ResultsFile), window(searchLatency, orderLatency, errs))
			runs = append(runs, r)
		}
	}
	return out, runs
}

func twoLines() *config.Config {
	cfg := config.Default()
	cfg.Pairs, cfg.MaxPairs = 10, 10
	cfg.Load.Requests = []report.Request{{Method: "GET", Path: "/search?q=alpha"}, {Method: "POST", Path: "/order", Body: "{}"}}
	return cfg
}

func TestCompareFindsTheRegressedEndpoint(t *testing.T) {
	out, runs := experiment(t, 10, 1.3, 4)
	endpoints, warnings := Compare(out, runs, twoLines())
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	if len(endpoints) != 2 {
		t.Fatalf("%d endpoints, want 2", len(endpoints))
	}
	byName := func(e report.Endpoint) map[string]report.Metric {
		m := map[string]report.Metric{}
		for _, x := range e.Metrics {
			m[x.Name] = x
		}
		return m
	}
	s, o := endpoints[0], endpoints[1]
	if s.Method != "GET" || s.Path != "/search?q=alpha" || o.Method != "POST" || o.Path != "/order" {
		t.Fatalf("endpoints are %s %s and %s %s", s.Method, s.Path, o.Method, o.Path)
	}
	if s.Pairs != 10 || s.BaseRequests != 200 || s.HeadRequests != 200 {
		t.Errorf("search: pairs %d, requests %v/%v; want 10, 200/200", s.Pairs, s.BaseRequests, s.HeadRequests)
	}
	for _, tt := range []struct {
		e       report.Endpoint
		name    string
		outcome string
		scale   string
		delta   float64 // within 0.02 (relative) or 0.001 (absolute)
	}{
		{s, "latency_p50", stats.Regression, "relative", 0.3},
		{s, "latency_p99", stats.Regression, "relative", 0.3},
		{s, "errors", stats.Unchanged, "absolute", 0},
		{o, "latency_p50", stats.Unchanged, "relative", 0},
		// 4 of 200 orders fail in head: +2 pp in every round, far past
		// gate.errors (0.1 pp).
		{o, "errors", stats.Regression, "absolute", 0.02},
	} {
		m, ok := byName(tt.e)[tt.name]
		if !ok {
			t.Errorf("%s: no %s", tt.e.Path, tt.name)
			continue
		}
		tol := 0.02
		if tt.scale == "absolute" {
			tol = 0.001
		}
		if m.Outcome != tt.outcome || m.Scale != tt.scale || m.Delta < tt.delta-tol || m.Delta > tt.delta+tol {
			t.Errorf("%s %s: %s %s Δ %v (CI %v, p %v); want %s %s Δ %v", tt.e.Path, tt.name, m.Outcome, m.Scale, m.Delta, m.CI, m.P, tt.outcome, tt.scale, tt.delta)
		}
		if m.Gates || m.InFamily || m.Family != 0 {
			t.Errorf("%s %s gates (gates %v, in family %v, family %d): endpoints are reported only", tt.e.Path, tt.name, m.Gates, m.InFamily, m.Family)
		}
		if m.Pairs != 10 {
			t.Errorf("%s %s: %d pairs, want 10", tt.e.Path, tt.name, m.Pairs)
		}
	}
	if len(s.Summary) != 1 || s.Summary[0].Name != "throughput" || s.Summary[0].Base < 90 || s.Summary[0].HeadRuns != 10 {
		t.Errorf("search summary = %+v, want throughput medians near 100 req/s over 10 runs", s.Summary)
	}
	// The catalog's thresholds: latency against the reporting threshold
	// (gate.cpu without gate.latency), errors against gate.errors.
	cfg := twoLines()
	if m := byName(s)["latency_p99"]; m.Threshold != float64(cfg.Gate.CPU) {
		t.Errorf("latency threshold %v, want gate.cpu %v", m.Threshold, float64(cfg.Gate.CPU))
	}
	if m := byName(o)["errors"]; m.Threshold != float64(cfg.Gate.Errors) {
		t.Errorf("errors threshold %v, want gate.errors %v", m.Threshold, float64(cfg.Gate.Errors))
	}
}

func TestCompareLeavesOut(t *testing.T) {
	out, runs := experiment(t, 6, 1, 0)
	oneLine := twoLines()
	oneLine.Load.Requests = oneLine.Load.Requests[:1]
	sameLineTwice := twoLines()
	sameLineTwice.Load.Requests[1] = report.Request{Method: "GET", Path: "/search?q=alpha", Body: "x"}
	if e, _ := Compare(out, runs, oneLine); e != nil {
		t.Errorf("one request line: %d endpoints, want none (the metrics are that line)", len(e))
	}
	if e, _ := Compare(out, runs, sameLineTwice); e != nil {
		t.Errorf("one line configured twice: %d endpoints, want none", len(e))
	}

	// Invalid runs and profile rounds are not compared; a results file
	// that is gone takes its pair out of every endpoint, with a warning.
	runs[0].Valid = false
	runs[3].ProfileRound = true
	if err := os.Remove(filepath.Join(out, runs[5].Dir, load.ResultsFile)); err != nil {
		t.Fatal(err)
	}
	endpoints, warnings := Compare(out, runs, twoLines())
	if len(warnings) != 1 {
		t.Errorf("warnings = %v, want one for the missing file", warnings)
	}
	for _, e := range endpoints {
		if e.Pairs != 3 {
			t.Errorf("%s: %d pairs, want 3 of 6 (one invalid, one profile round, one without results)", e.Path, e.Pairs)
		}
	}

	// A line head never answered (a route it lost) has no pairs.
	none := twoLines()
	none.Load.Requests = append(none.Load.Requests, report.Request{Method: "GET", Path: "/gone"})
	endpoints, _ = Compare(out, runs, none)
	if len(endpoints) != 3 || endpoints[2].Pairs != 0 || len(endpoints[2].Metrics) != 0 {
		t.Errorf("an unanswered line: %+v", endpoints[len(endpoints)-1])
	}
}
