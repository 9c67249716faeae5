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
