package verdict

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// runs makes n pairs whose head allocates allocsHead per request against
// base's 100, with CPU equal on both sides up to a small wobble.
func runs(n int, allocsHead float64) []report.Run {
	var out []report.Run
	for i := 1; i <= n; i++ {
		wobble := float64(i%3) - 1
		b, h := 100.0, allocsHead+0.01*wobble
		out = append(out,
			report.Run{Side: "base", Pair: i, Valid: true, Figures: report.Figures{Requests: 1000, CPUSource: "cgroup", CPUMicrosPerRequest: 300 + wobble, AllocsPerRequest: &b, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3}},
			report.Run{Side: "head", Pair: i, Valid: true, Figures: report.Figures{Requests: 1000, CPUSource: "cgroup", CPUMicrosPerRequest: 300 - wobble, AllocsPerRequest: &h, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3}},
		)
	}
	return out
}

func gate() config.Gate {
	return config.Default().Gate
}

func TestAllocationRegressionFailsTheGate(t *testing.T) {
	metrics := Compare(runs(10, 137), gate())
	verdict, reason, counts := Decide(metrics)
	if verdict != report.Regression || counts["regression"] != 1 || !strings.HasPrefix(reason, "regression: allocs +37.0%") {
		t.Errorf("verdict %s (%s), counts %v", verdict, reason, counts)
	}
	names := map[string]report.Metric{}
	for _, m := range metrics {
		names[m.Name] = m
	}
	if _, ok := names["bytes"]; ok {
		t.Error("no run has bytes/req, so there must be no bytes metric")
	}
	if m := names["latency_p99"]; m.Gates {
		t.Error("latency must not gate unless gate.latency is set")
	}
	if m := names["errors"]; m.Scale != "absolute" || m.Outcome != "unchanged" {
		t.Errorf("errors metric %+v", m)
	}
}

func TestInvalidPairsAreDroppedPairwise(t *testing.T) {
	rs := runs(10, 137)
	rs[1].Valid = false // head of pair 1
	if got := len(ValidPairs(rs)); got != 9 {
		t.Fatalf("valid pairs = %d, want 9", got)
	}
	for _, m := range Compare(rs, gate()) {
		// Errors and failures weigh every measured round, valid or not.
		want := 9
		if m.Name == "errors" || m.Name == "failures" {
			want = 10
		}
		if m.Pairs != want {
			t.Errorf("%s used %d pairs, want %d", m.Name, m.Pairs, want)
		}
	}
}

func TestLatencyGatesWhenAsked(t *testing.T) {
	g := gate()
	g.Latency = 0.05
	for _, m := range Compare(runs(10, 100), g) {
		if strings.HasPrefix(m.Name, "latency") && (!m.Gates || m.Threshold != 0.05) {
			t.Errorf("%s: gates %v threshold %v", m.Name, m.Gates, m.Threshold)
		}
	}
}

func TestSameCodeIsNotARegression(t *testing.T) {
	verdict, reason, _ := Decide(Compare(runs(10, 100), gate()))
	if verdict == report.Regression {
		t.Errorf("A/A comparison gave %s: %s", verdict, reason)
	}
}

// leakRuns makes n pairs whose head keeps headGoroutines goroutines and
// headHeap bytes of live heap per 1,000 requests, against a base that keeps
// about none (A/A values wobble around 0, either sign).
func leakRuns(n int, headGoroutines, headHeap float64) []report.Run {
	rs := runs(n, 100)
	for i := range rs {
		wobble := float64(i%5-2) / 10
		g, h := wobble, 500*wobble
		if rs[i].Side == "head" {
			g, h = headGoroutines+wobble, headHeap+500*wobble
		}
		rs[i].Figures.GoroutinesRetainedPer1k, rs[i].Figures.HeapRetainedBytesPer1k = &g, &h
	}
	return rs
}

func TestLeaksGateOnTheAbsoluteScale(t *testing.T) {
	byName := func(ms []report.Metric) map[string]report.Metric {
		out := map[string]report.Metric{}
		for _, m := range ms {
			out[m.Name] = m
		}
		return out
	}
	same := byName(Compare(leakRuns(10, 0, 0), gate()))
	for _, name := range []string{"goroutines", "heap"} {
		m := same[name]
		if m.Scale != "absolute" || !m.Gates || m.Outcome == "regression" {
			t.Errorf("A/A %s: %+v", name, m)
		}
	}
	leak := Compare(leakRuns(10, 1000, 256<<10), gate())
	verdict, reason, counts := Decide(leak)
	got := byName(leak)
	if g := got["goroutines"]; g.Outcome != "regression" || g.Delta < 999 || g.Threshold != 1 {
		t.Errorf("a goroutine per request kept: %+v", g)
	}
	if h := got["heap"]; h.Outcome != "regression" || h.Threshold != 64<<10 {
		t.Errorf("256 KiB per 1,000 requests kept: %+v", h)
	}
	if verdict != report.Regression || counts["regression"] != 2 ||
		!strings.Contains(reason, "goroutines +1000 goroutines/1k req") || !strings.Contains(reason, "heap +256 KiB/1k req") {
		t.Errorf("verdict %s (%s), counts %v", verdict, reason, counts)
	}
}

// TestGoroutinesOfHalvesThatOpenedConnectionsDoNotCount: goroutines a
// half added while the load opened connections (a pool growing to a new
// peak of requests in flight) are left out per side, the other side's
// run of the same round still counts, and a leak in the other halves is
// still found.
func TestGoroutinesOfHalvesThatOpenedConnectionsDoNotCount(t *testing.T) {
	goroutinesOf := func(rs []report.Run) report.Metric {
		for _, m := range Compare(rs, gate()) {
			if m.Name == "goroutines" {
				return m
			}
		}
		t.Fatal("no goroutines metric")
		return report.Metric{}
	}
	// 14 rounds of 750 requests a half; a pool grows by 12 goroutines in
	// a few halves of each side, never the same round's two.
	pools := func(headLeak float64) []report.Run {
		rs := runs(14, 100)
		for i := range rs {
			f := &rs[i].Figures
			per1k := 1000 * headLeak
			if rs[i].Side == "base" {
				per1k = 0
			}
			grows := (rs[i].Side == "base" && rs[i].Pair%4 == 0) || (rs[i].Side == "head" && rs[i].Pair%4 == 1)
			if grows {
				per1k += 16 // 12 over 750 requests
				f.SecondHalfNewConnections = 27
			}
			f.Requests, f.SecondHalfRequests, f.GoroutinesRetainedPer1k = 1500, 750, &per1k
		}
		return rs
	}
	same := goroutinesOf(pools(0))
	if same.Outcome != "unchanged" || same.Base != 0 || same.Head != 0 || same.Pairs != 10 {
		t.Errorf("pools that grew on either side, no leak: %s, base %v head %v over %d rounds, want unchanged, 0 and 0 over 10 (14 less each side's 3 or 4)",
			same.Outcome, same.Base, same.Head, same.Pairs)
	}
	leak := goroutinesOf(pools(0.008)) // 6 in a half, 8 per 1,000 requests
	if leak.Outcome != "regression" || leak.Delta < 7.99 || leak.Delta > 8.01 {
		t.Errorf("a leak of 8 per 1,000 requests besides the pools: %s, %+.2f, want regression, +8", leak.Outcome, leak.Delta)
	}
}

func TestMemoryPeakIsReportedNotGated(t *testing.T) {
	rs := runs(10, 100)
	for i := range rs {
		rs[i].Figures.MemoryPeakBytes = 30 << 20
		if rs[i].Side == "head" {
			rs[i].Figures.MemoryPeakBytes = 60 << 20
		}
	}
	ms := Compare(rs, gate())
	for _, m := range ms {
		if m.Name == "memory_peak" {
			if m.Gates || m.Outcome != "regression" || m.Unit != "MiB" {
				t.Errorf("memory_peak %+v", m)
			}
			if v, _, _ := Decide(ms); v == report.Regression {
				t.Error("a doubled memory peak alone failed the gate")
			}
			return
		}
	}
	t.Error("no memory_peak metric")
}
