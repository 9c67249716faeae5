package stats

import (
	"math"
	"testing"
)

// pairs builds base values around 100 and head = base·(1+change) with a
// small alternating wobble, deterministic.
func pairs(n int, change, wobble float64) (base, head []float64) {
	for i := 0; i < n; i++ {
		b := 100 + float64(i%3)
		w := wobble * float64((i*7)%5-2) / 2
		base = append(base, b)
		head = append(head, b*(1+change+w))
	}
	return base, head
}

func TestDecideOutcomes(t *testing.T) {
	cases := []struct {
		name      string
		n         int
		change    float64
		wobble    float64
		threshold float64
		want      string
	}{
		{"clear regression", 10, 0.37, 0.002, 0.02, Regression},
		{"clear improvement", 10, -0.20, 0.002, 0.02, Improvement},
		{"no change, tight", 10, 0, 0.002, 0.02, Unchanged},
		{"significant but below threshold, interval inside", 10, 0.005, 0.001, 0.02, Unchanged},
		{"significant, estimate below threshold, interval past it", 10, 0.09, 0.04, 0.10, Inconclusive},
		{"large change, too few pairs to be significant", 3, 0.37, 0.002, 0.02, Inconclusive},
		{"noise wider than the threshold", 10, 0, 0.20, 0.05, Inconclusive},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, head := pairs(c.n, c.change, c.wobble)
			got := Decide([]Input{{Name: "m", Base: base, Head: head, Scale: Relative, Threshold: c.threshold, Gates: true}}, 0.01)[0]
			if got.Outcome != c.want {
				t.Errorf("outcome %s, want %s (delta %+.4f CI %v p↑ %v p↓ %v)", got.Outcome, c.want, got.Delta, got.CI, got.PRegression, got.PImprovement)
			}
			if c.change != 0 && math.Abs(got.Delta-c.change) > 0.02+c.wobble {
				t.Errorf("estimate %+.4f far from the planted %+.4f", got.Delta, c.change)
			}
		})
	}
}

func TestDecideHolmAcrossGatingMetricsOnly(t *testing.T) {
	base, head := pairs(10, 0.37, 0.002)
	results := Decide([]Input{
		{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true},
		{Name: "allocs", Base: base, Head: head, Threshold: 0.02, Gates: true},
		{Name: "latency", Base: base, Head: head, Threshold: 0.1, Gates: false},
	}, 0.01)
	raw := SignedRankTest(mustLogRatios(base, head)).PGreater
	if !near(results[0].PRegression, 2*raw) || !near(results[1].PRegression, 2*raw) {
		t.Errorf("gating p = %v, %v; want Holm's 2×%v", results[0].PRegression, results[1].PRegression, raw)
	}
	if !near(results[2].PRegression, raw) {
		t.Errorf("non-gating p = %v, want the raw %v", results[2].PRegression, raw)
	}
}

func TestDetectable(t *testing.T) {
	base, head := pairs(10, 0, 0.02)
	r := Decide([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r.Detectable == nil || *r.Detectable <= 0 || *r.Detectable > 0.1 {
		t.Errorf("detectable = %v for 2%% wobble over 10 pairs", r.Detectable)
	}
	noisier, _ := pairs(10, 0, 0.08)
	_, h := pairs(10, 0, 0.08)
	r2 := Decide([]Input{{Name: "cpu", Base: noisier, Head: h, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r2.Detectable == nil || *r2.Detectable <= *r.Detectable {
		t.Errorf("more noise must make the detectable change larger: %v vs %v", r2.Detectable, r.Detectable)
	}
	few, fewHead := pairs(5, 0, 0.02)
	if r := Decide([]Input{{Name: "cpu", Base: few, Head: fewHead, Threshold: 0.1, Gates: true}}, 0.01)[0]; r.Detectable != nil {
		t.Errorf("5 pairs cannot reach p <= 0.01 (1/32 at best), detectable = %v", *r.Detectable)
	}
}

func TestAbsoluteErrorRate(t *testing.T) {
	zeros := make([]float64, 10)
	r := Decide([]Input{{Name: "errors", Base: zeros, Head: zeros, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]
	if r.Outcome != Unchanged || r.Delta != 0 {
		t.Errorf("no errors on either side: %+v", r)
	}
	failing := make([]float64, 10)
	for i := range failing {
		failing[i] = 0.05 + 0.001*float64(i)
	}
	r = Decide([]Input{{Name: "errors", Base: zeros, Head: failing, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]
	if r.Outcome != Regression || math.Abs(r.Delta-0.0545) > 0.001 {
		t.Errorf("5%% errors in head: %s delta %v", r.Outcome, r.Delta)
	}
}

func TestNonPositiveRelativeValuesAreDropped(t *testing.T) {
	base, head := pairs(10, 0.37, 0.002)
	base[0] = 0
	r := Decide([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r.Pairs != 9 || r.Dropped != 1 {
		t.Errorf("pairs %d dropped %d, want 9 and 1", r.Pairs, r.Dropped)
	}
}

func mustLogRatios(base, head []float64) []float64 {
	d := make([]float64, len(base))
	for i := range base {
		d[i] = math.Log(head[i] / base[i])
	}
	return d
}

func TestTooFewPairsNeverClaimUnchanged(t *testing.T) {
	base, head := pairs(3, 0.001, 0.0005)
	r := Decide([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r.Outcome != Inconclusive || r.CILevel >= 0.98 {
		t.Errorf("3 pairs: outcome %s at level %v; a 75%% interval proves nothing", r.Outcome, r.CILevel)
	}
	zeros := []float64{0, 0, 0}
	if r := Decide([]Input{{Name: "errors", Base: zeros, Head: zeros, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]; r.Outcome != Unchanged {
		t.Errorf("identical pairs are unchanged whatever their number, got %s", r.Outcome)
	}
}
