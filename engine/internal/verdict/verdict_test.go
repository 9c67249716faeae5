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
			report.Run{Side: "base", Pair: i, Valid: true, Figures: report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 300 + wobble, AllocsPerRequest: &b, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3}},
			report.Run{Side: "head", Pair: i, Valid: true, Figures: report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 300 - wobble, AllocsPerRequest: &h, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3}},
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
		if m.Pairs != 9 {
			t.Errorf("%s used %d pairs, want 9", m.Name, m.Pairs)
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
