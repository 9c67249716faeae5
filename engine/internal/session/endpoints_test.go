package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// writeWindow writes a run's window as vegeta results: 100 searches
// answered in search and 100 orders in 1 ms, over a second.
func writeWindow(t *testing.T, path string, search time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := vegeta.NewEncoder(f)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 100 {
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		jitter := time.Duration(i%7) * 50 * time.Microsecond
		for _, r := range []vegeta.Result{
			{Method: "GET", URL: "http://127.0.0.1:9/search?q=alpha", Code: 200, Timestamp: at, Latency: search + jitter},
			{Method: "POST", URL: "http://127.0.0.1:9/order", Code: 200, Timestamp: at.Add(5 * time.Millisecond), Latency: time.Millisecond + jitter},
		} {
			if err := enc.Encode(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCompareAddsEndpointsThatNeverGate: perfgate compare fills endpoints
// from the runs' results files; a search that got 60% slower regresses as
// an endpoint while the verdict, its counts and the metrics stay those of
// the gating metrics alone.
func TestCompareAddsEndpointsThatNeverGate(t *testing.T) {
	out := t.TempDir()
	cfg := config.Default()
	cfg.Service.Package = "./cmd/server"
	cfg.Pairs, cfg.MaxPairs = 8, 8
	cfg.Load.Requests = []report.Request{{Method: "GET", Path: "/search?q=alpha"}, {Method: "POST", Path: "/order", Body: "{}"}}
	rep := &report.Report{Schema: report.Schema, Verdict: report.Error, Reason: "running", Mode: report.ModeGate, Config: cfg.Report()}
	for pair := 1; pair <= 8; pair++ {
		for _, side := range []string{experiment.Base, experiment.Head} {
			search := time.Duration(2000+100*(pair%3)) * time.Microsecond
			cpu := 300 + float64(pair%4)
			if side == experiment.Head {
				search = search * 8 / 5
				cpu += float64(pair%3) - 1
			}
			r := report.Run{Side: side, Pair: pair, Order: len(rep.Runs) + 1, Dir: fmt.Sprintf("%s/run-%02d", side, pair), Valid: true,
				Figures: report.Figures{Requests: 200, CPUSource: "cgroup", CPUMicrosPerRequest: cpu, LatencyP50Ms: 1.5, LatencyP90Ms: 2, LatencyP99Ms: 3}}
			writeWindow(t, filepath.Join(out, r.Dir, load.ResultsFile), search)
			rep.Runs = append(rep.Runs, r)
		}
	}
	if err := results.WriteReport(out, rep); err != nil {
		t.Fatal(err)
	}
	got, err := Recompute(RecomputeOptions{Out: out, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Endpoints) != 2 || got.Endpoints[0].Path != "/search?q=alpha" || got.Endpoints[1].Path != "/order" {
		t.Fatalf("endpoints %+v, want /search?q=alpha and /order", got.Endpoints)
	}
	for _, m := range got.Endpoints[0].Metrics {
		if m.Name == "latency_p50" && (m.Outcome != "regression" || m.Delta < 0.5) {
			t.Errorf("search p50 %s %+.1f%%, want a regression of about +60%%", m.Outcome, 100*m.Delta)
		}
	}
	if v, reason, counts := verdict.Decide(got.Metrics); got.Verdict != v || got.Reason != reason || fmt.Sprint(got.Counts) != fmt.Sprint(counts) {
		t.Errorf("verdict %s (%s), counts %v; the gating metrics alone say %s (%s), %v", got.Verdict, got.Reason, got.Counts, v, reason, counts)
	}
	if got.Verdict == report.Regression {
		t.Errorf("an endpoint's regression failed the gate: %s", got.Reason)
	}
	for _, w := range got.Warnings {
		if strings.HasPrefix(w, "endpoints:") {
			t.Errorf("warning %q", w)
		}
	}
	if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(md), "Per endpoint (2 request lines, 1 regressed") {
		t.Errorf("report.md lacks the endpoints: %v\n%s", err, md)
	}
}
