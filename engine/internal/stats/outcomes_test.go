package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/simtest"
)

// fixed is a plan with a single look at n rounds.
func fixed(alpha float64, n int) Plan { return Plan{Alpha: alpha, Min: n, Max: n} }

// decideFixed decides every input at a single look over its pairs.
func decideFixed(inputs []Input, alpha float64) []Result {
	n := len(inputs[0].Base)
	return Outcomes(inputs, fixed(alpha, n), n)
}

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

func TestOutcomes(t *testing.T) {
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
		{"significant, estimate below threshold, bound past it", 10, 0.09, 0.04, 0.095, Inconclusive},
		{"large change, too few pairs to be significant", 3, 0.37, 0.002, 0.02, Inconclusive},
		{"noise wider than the threshold", 10, 0, 0.30, 0.05, Inconclusive},
		// The interval reaches +15% at alpha's level, but +6% is ruled out
		// at the miss rate: that is what unchanged needs.
		{"noise within the threshold at the miss rate", 10, 0, 0.20, 0.06, Unchanged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, head := pairs(c.n, c.change, c.wobble)
			got := decideFixed([]Input{{Name: "m", Base: base, Head: head, Scale: Relative, Threshold: c.threshold, Gates: true}}, 0.01)[0]
			if got.Outcome != c.want {
				t.Errorf("outcome %s, want %s (delta %+.4f CI %v p↑ %v p↓ %v)", got.Outcome, c.want, got.Delta, got.CI, got.PRegression, got.PImprovement)
			}
			if c.change != 0 && math.Abs(got.Delta-c.change) > 0.02+c.wobble {
				t.Errorf("estimate %+.4f far from the planted %+.4f", got.Delta, c.change)
			}
		})
	}
}

func TestOutcomesHolmAcrossGatingMetricsOnly(t *testing.T) {
	base, head := pairs(10, 0.37, 0.002)
	results := decideFixed([]Input{
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
	r := decideFixed([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
	// The threshold condition is part of the rule: nothing at or below
	// 10% is ever caught, and 2% noise over 10 pairs adds little.
	if r.Detectable == nil || *r.Detectable <= 0.1 || *r.Detectable > 0.12 {
		t.Errorf("detectable = %v for 2%% wobble over 10 pairs", deref(r.Detectable))
	}
	noisier, _ := pairs(10, 0, 0.08)
	_, h := pairs(10, 0, 0.08)
	r2 := decideFixed([]Input{{Name: "cpu", Base: noisier, Head: h, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r2.Detectable == nil || *r2.Detectable <= *r.Detectable {
		t.Errorf("more noise must make the detectable change larger: %v vs %v", deref(r2.Detectable), deref(r.Detectable))
	}
	few, fewHead := pairs(5, 0, 0.02)
	if r := decideFixed([]Input{{Name: "cpu", Base: few, Head: fewHead, Threshold: 0.1, Gates: true}}, 0.01)[0]; r.Detectable != nil {
		t.Errorf("5 pairs cannot reach p <= 0.01 (1/32 at best), detectable = %v", *r.Detectable)
	}
}

// TestDetectableRangeHoldsTheTrueNoisesAnswer: "could detect" is estimated
// from the gate's own rounds, and its range says how far: over 400
// simulated gates of 14 rounds at 0.8% normal noise (the defaults' first
// look, at a fixed alpha), the range holds the could-detect typical of that
// noise (the median over the gates) in about 80% of them, and always holds
// the gate's own could-detect.
func TestDetectableRangeHoldsTheTrueNoisesAnswer(t *testing.T) {
	simtest.Simulation(t)
	const gates, n, sd, threshold, alpha = 400, 14, 0.008, 0.015, 0.01
	rng := rand.New(rand.NewPCG(7, 11))
	results := make([]Result, gates)
	all := make([]float64, gates)
	for g := range results {
		base, head := make([]float64, n), make([]float64, n)
		for i := range base {
			base[i], head[i] = 100, 100*math.Exp(sd*rng.NormFloat64())
		}
		results[g] = decideFixed([]Input{{Name: "cpu", Base: base, Head: head, Threshold: threshold, Gates: true}}, alpha)[0]
		if results[g].Detectable == nil || results[g].DetectableRange == nil {
			t.Fatalf("gate %d: detectable %v, range %v; want both", g, deref(results[g].Detectable), results[g].DetectableRange)
		}
		all[g] = *results[g].Detectable
	}
	slices.Sort(all)
	typical := median(all)
	held := 0
	for g, r := range results {
		low, high := r.DetectableRange[0], r.DetectableRange[1]
		if !(low <= *r.Detectable && *r.Detectable <= high) {
			t.Errorf("gate %d: could detect %v outside its own range [%v, %v]", g, *r.Detectable, low, high)
		}
		if low <= typical && typical <= high {
			held++
		}
	}
	share := float64(held) / gates
	t.Logf("the range held the typical could-detect %.4f in %d of %d gates (%.2f)", typical, held, gates, share)
	if share < 0.7 || share > 0.9 {
		t.Errorf("the range held the typical could-detect in %.2f of the gates, want about %.1f", share, noiseRange)
	}
}

// TestOperatingCharacteristic: a gate's own operating characteristic rises
// with the true change, stays at most the look's level up to δ0 (half the
// threshold), crosses DetectablePower where Detectable says, and exists
// only for gating metrics with a threshold. Both ways of computing it: by
// resampling (14 pairs) and by the normal approximation (60).
func TestOperatingCharacteristic(t *testing.T) {
	const threshold, alpha = 0.1, 0.01
	for _, n := range []int{14, 60} {
		base, head := pairs(n, 0, 0.04)
		results := decideFixed([]Input{
			{Name: "cpu", Base: base, Head: head, Threshold: threshold, Gates: true},
			{Name: "latency", Base: base, Head: head, Threshold: threshold},
		}, alpha)
		r := results[0]
		if len(r.OC) != len(ocSteps) || r.Detectable == nil {
			t.Fatalf("%d pairs: %d OC points, detectable %v; want %d and a detectable change", n, len(r.OC), deref(r.Detectable), len(ocSteps))
		}
		for i, p := range r.OC {
			if !near(p.Change, ocSteps[i]*threshold) || (i > 0 && p.Caught < r.OC[i-1].Caught) {
				t.Errorf("%d pairs: point %d %+v after %+v: want the change %v× the threshold, caught no less often", n, i, p, r.OC[max(0, i-1)], ocSteps[i])
			}
			if p.Change <= IndifferenceShare*threshold && p.Caught > alpha {
				t.Errorf("%d pairs: a true change of %v is caught %v of the time, above alpha %v", n, p.Change, p.Caught, alpha)
			}
			if below := p.Change < *r.Detectable; below == (p.Caught >= DetectablePower) {
				t.Errorf("%d pairs: at %v caught %v, but the detectable change is %v", n, p.Change, p.Caught, *r.Detectable)
			}
		}
		if results[1].OC != nil {
			t.Errorf("%d pairs: a metric that does not gate has an OC: %+v", n, results[1].OC)
		}
	}
}

func TestAbsoluteErrorRate(t *testing.T) {
	zeros := make([]float64, 10)
	r := decideFixed([]Input{{Name: "errors", Base: zeros, Head: zeros, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]
	if r.Outcome != Unchanged || r.Delta != 0 {
		t.Errorf("no errors on either side: %+v", r)
	}
	failing := make([]float64, 10)
	for i := range failing {
		failing[i] = 0.05 + 0.001*float64(i)
	}
	r = decideFixed([]Input{{Name: "errors", Base: zeros, Head: failing, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]
	if r.Outcome != Regression || math.Abs(r.Delta-0.0545) > 0.001 {
		t.Errorf("5%% errors in head: %s delta %v", r.Outcome, r.Delta)
	}
}

func TestNonPositiveRelativeValuesAreDropped(t *testing.T) {
	base, head := pairs(10, 0.37, 0.002)
	base[0] = 0
	r := decideFixed([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
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
	r := decideFixed([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.1, Gates: true}}, 0.01)[0]
	if r.Outcome != Inconclusive || r.CILevel >= 0.98 {
		t.Errorf("3 pairs: outcome %s at level %v; a 75%% interval proves nothing", r.Outcome, r.CILevel)
	}
	zeros := []float64{0, 0, 0}
	if r := decideFixed([]Input{{Name: "errors", Base: zeros, Head: zeros, Scale: Absolute, Threshold: 0.001, Gates: true}}, 0.01)[0]; r.Outcome != Unchanged {
		t.Errorf("identical pairs are unchanged whatever their number, got %s", r.Outcome)
	}
}

// TestIntervalMatchesTheAdjustedTest: for untied data the interval's lower
// bound is above δ0 (half the threshold) exactly when the Holm-adjusted
// regression test against δ0 is significant, and its upper bound below -δ0
// exactly when the improvement test is, at every look of a sequential plan.
func TestIntervalMatchesTheAdjustedTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := Plan{Alpha: 0.05, Min: 8, Max: 20}
	for trial := range 400 {
		n := p.Looks()[trial%len(p.Looks())]
		var inputs []Input
		for m := range 4 {
			in := Input{Name: string(rune('a' + m)), Threshold: 0.01, Gates: m < 3}
			shift := 0.004 * float64(trial%5-2) * float64(m%2*2-1)
			for range n {
				in.Base = append(in.Base, 1)
				in.Head = append(in.Head, math.Exp(shift+0.01*rng.NormFloat64()))
			}
			inputs = append(inputs, in)
		}
		for _, r := range outcomes(inputs, p, n, nil) {
			d0 := IndifferenceShare * r.Threshold
			if (r.CI[0] > d0) != (r.PRegression <= p.Alpha) || (r.CI[1] < -d0) != (r.PImprovement <= p.Alpha) {
				t.Fatalf("trial %d, %s at %d rounds: CI %v, p↑ %v, p↓ %v, alpha %v", trial, r.Name, n, r.CI, r.PRegression, r.PImprovement, p.Alpha)
			}
		}
	}
}

// TestMetricsWithoutDifferencesLeaveTheFamily: errors that are zero on
// both sides cannot be rejected, so they must not make the others pay for
// Holm's correction: 7 rounds reach p = 1/128 < 0.01 alone, but not with
// three metrics sharing alpha.
func TestMetricsWithoutDifferencesLeaveTheFamily(t *testing.T) {
	base, head := pairs(7, 0.37, 0.002)
	zeros := make([]float64, 7)
	res := decideFixed([]Input{
		{Name: "cpu", Base: base, Head: head, Threshold: 0.02, Gates: true},
		{Name: "errors", Base: zeros, Head: zeros, Scale: Absolute, Threshold: 0.001, Gates: true},
		{Name: "goroutines", Base: zeros, Head: zeros, Scale: Absolute, Gates: true},
	}, 0.01)
	if res[0].Outcome != Regression || res[0].Family != 1 || !res[0].InFamily || res[1].InFamily {
		t.Errorf("cpu %s (family %d, in %v), errors in family %v", res[0].Outcome, res[0].Family, res[0].InFamily, res[1].InFamily)
	}
	if res[1].Outcome != Unchanged || res[2].Outcome != Unchanged {
		t.Errorf("identical pairs: %s, %s", res[1].Outcome, res[2].Outcome)
	}
	// A metric with too few non-zero differences to reach the level leaves
	// too (Tarone): one failed round in seven is p >= 1/2.
	oneError := append([]float64(nil), zeros...)
	oneError[3] = 0.0001
	res = decideFixed([]Input{
		{Name: "cpu", Base: base, Head: head, Threshold: 0.02, Gates: true},
		{Name: "errors", Base: zeros, Head: oneError, Scale: Absolute, Threshold: 0.001, Gates: true},
	}, 0.01)
	if res[0].Outcome != Regression || res[0].Family != 1 || res[1].InFamily || res[1].PRegression <= 0.01 {
		t.Errorf("one error: cpu %s family %d; errors in family %v, p %v", res[0].Outcome, res[0].Family, res[1].InFamily, res[1].PRegression)
	}
}

func TestMayStop(t *testing.T) {
	p := Plan{Alpha: 0.01, Min: 12, Max: 24}
	clear, _ := pairs(12, 0, 0.002)
	_, up := pairs(12, 0.3, 0.002)
	_, noisy := pairs(12, 0, 0.2)
	cases := []struct {
		name string
		head []float64
		n    int
		want bool
	}{
		{"unchanged at the first look", clear, 12, true},
		{"regression at the first look", up, 12, true},
		{"noise wider than the threshold", noisy, 12, false},
		{"between looks", clear, 13, false},
	}
	for _, c := range cases {
		base, head := clear, c.head
		for len(base) < c.n {
			base, head = append(base, base[0]), append(head, head[0])
		}
		res := Outcomes([]Input{{Name: "cpu", Base: base, Head: head, Threshold: 0.02, Gates: true}}, p, c.n)
		if got := MayStop(res); got != c.want {
			t.Errorf("%s: MayStop = %v (outcome %s, at look %v)", c.name, got, res[0].Outcome, res[0].AtLook)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// benchmarkOutcomes times one analysis of a gate's nine metrics (six gating,
// three latency quantiles) after n rounds, Detectable included.
func benchmarkOutcomes(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(5, 6))
	var inputs []Input
	for m := range 9 {
		in := Input{Name: string(rune('a' + m)), Threshold: 0.015, Gates: m < 6}
		if m == 3 {
			in.Scale = Absolute
		}
		for range n {
			in.Base = append(in.Base, 100)
			if m == 3 {
				in.Head = append(in.Head, 100) // errors: none on either side
			} else {
				in.Head = append(in.Head, 100*math.Exp(0.008*rng.NormFloat64()))
			}
		}
		inputs = append(inputs, in)
	}
	p := Plan{Alpha: 0.01, Min: n, Max: n}
	b.ResetTimer()
	for range b.N {
		Outcomes(inputs, p, n)
	}
}

func BenchmarkOutcomes20(b *testing.B)   { benchmarkOutcomes(b, 20) }
func BenchmarkOutcomes200(b *testing.B)  { benchmarkOutcomes(b, 200) }
func BenchmarkOutcomes1000(b *testing.B) { benchmarkOutcomes(b, 1000) }
