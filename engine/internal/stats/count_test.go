package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/simtest"
)

// countInput is an errors-like Count input: rounds of perRound requests a
// side, each side's errors Poisson at its rate.
func countInput(rng *rand.Rand, rounds int, perRound, baseRate, headRate, threshold float64) Input {
	in := Input{Name: "errors", Scale: Count, Threshold: threshold, Gates: true}
	for range rounds {
		in.Base = append(in.Base, float64(poisson(rng, perRound*baseRate)))
		in.Head = append(in.Head, float64(poisson(rng, perRound*headRate)))
		in.BaseExposure = append(in.BaseExposure, perRound)
		in.HeadExposure = append(in.HeadExposure, perRound)
	}
	return in
}

func TestCountWithoutEventsIsUnchanged(t *testing.T) {
	in := countInput(rand.New(rand.NewPCG(1, 1)), 14, 1500, 0, 0, 0.001)
	r := decideFixed([]Input{in}, 0.01)[0]
	if r.Outcome != Unchanged || r.Delta != 0 || r.InFamily {
		t.Errorf("no events: %s, delta %v, in family %v", r.Outcome, r.Delta, r.InFamily)
	}
	// No event in 21,000 requests rules out a rate above about
	// -ln(0.01)/21,000 = 0.022% at one-sided 1%.
	if r.CI[0] >= 0 || r.CI[1] <= 0 || r.CI[1] > 0.00025 {
		t.Errorf("no events: interval %v", r.CI)
	}
	if r.Detectable == nil || *r.Detectable <= r.Threshold {
		t.Errorf("no events: could detect %v, want above the threshold %v", r.Detectable, r.Threshold)
	}
	// 600 requests cannot rule out 0.1% more errors, and the interval
	// says so, but no error on either side is still not inconclusive.
	few := countInput(rand.New(rand.NewPCG(1, 1)), 6, 100, 0, 0, 0.001)
	r = decideFixed([]Input{few}, 0.05)[0]
	if r.Outcome != Unchanged || r.CI[1] <= r.Threshold {
		t.Errorf("no events in 600 requests: %s, interval %v", r.Outcome, r.CI)
	}
	// Base's two goroutines in one round (a connection opened at the
	// window's edge) and none of head's: not inconclusive, although 1,200
	// requests cannot rule out one more goroutine per 1,000.
	edge := Input{Name: "goroutines", Scale: Count, Threshold: 1, Gates: true,
		Base: []float64{0, 2, 0, 0, 0, 0}, Head: make([]float64, 6)}
	for range 6 {
		edge.BaseExposure = append(edge.BaseExposure, 0.2)
		edge.HeadExposure = append(edge.HeadExposure, 0.2)
	}
	r = decideFixed([]Input{edge}, 0.05)[0]
	if r.Outcome != Unchanged || r.Delta >= 0 || r.CI[1] <= r.Threshold {
		t.Errorf("base's events only, in 1,200 requests: %s, delta %v, interval %v", r.Outcome, r.Delta, r.CI)
	}
	// The same two on head's side are a question the gate cannot answer.
	edge.Base, edge.Head = edge.Head, edge.Base
	if r = decideFixed([]Input{edge}, 0.05)[0]; r.Outcome != Inconclusive {
		t.Errorf("head's events only, in 1,200 requests: %s, interval %v", r.Outcome, r.CI)
	}
}

// TestCountWithOneSideLeftOutIsInconclusive: every run of one side left
// out (each of its halves opened connections) leaves nothing to compare
// with; the gate says inconclusive, and its decision returns (the
// interval's search had no end at zero exposure).
func TestCountWithOneSideLeftOutIsInconclusive(t *testing.T) {
	in := Input{Name: "goroutines", Scale: Count, Threshold: 1, Gates: true, Head: []float64{0}, HeadExposure: []float64{0.75}}
	for _, results := range [][]Result{decideFixed([]Input{in}, 0.01), Decisions([]Input{in}, Plan{Alpha: 0.01, Min: 1, Max: 1}, 1)} {
		if r := results[0]; r.Outcome != Inconclusive || r.Pairs != 0 || r.CILevel != 0 {
			t.Errorf("no base rounds: %s over %d rounds, interval %v at %v", r.Outcome, r.Pairs, r.CI, r.CILevel)
		}
	}
}

// TestCountIntervalMatchesTheTest: the interval's lower bound is above δ0
// exactly when the regression test against δ0 rejects, and its upper bound
// below -δ0 exactly when the improvement test does.
func TestCountIntervalMatchesTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		base := []float64{0, 0.0002, 0.001, 0.01}[trial%4]
		head := base + 0.001*float64(trial%5-2)
		in := countInput(rng, 14, 1500, base, max(0, head), 0.001)
		r := Decisions([]Input{in}, fixed(0.01, 14), 14)[0]
		d0 := IndifferenceShare * r.Threshold
		if (r.CI[0] > d0) != (r.PRegression <= 0.01) || (r.CI[1] < -d0) != (r.PImprovement <= 0.01) {
			t.Fatalf("trial %d: CI %v, p↑ %v, p↓ %v", trial, r.CI, r.PRegression, r.PImprovement)
		}
	}
}

// TestCountBurstIsNotARegression: 40 errors in one round of head's (a
// stall) are one event, not 40; the same 40 spread over the rounds are a
// rate of 0.19%, above the 0.1% threshold, and a regression.
func TestCountBurstIsNotARegression(t *testing.T) {
	in := countInput(rand.New(rand.NewPCG(1, 1)), 14, 1500, 0, 0, 0.001)
	in.Head[5] = 40
	if r := decideFixed([]Input{in}, 0.01)[0]; r.Outcome == Regression {
		t.Errorf("a burst of 40 errors in one round: %s (p %v, interval %v)", r.Outcome, r.PRegression, r.CI)
	}
	for i := range in.Head {
		in.Head[i] = float64(2 + i%3) // 41 in all
	}
	if r := decideFixed([]Input{in}, 0.01)[0]; r.Outcome != Regression {
		t.Errorf("41 errors spread over 14 rounds: %s (p %v, interval %v)", r.Outcome, r.PRegression, r.CI)
	}
}

// countPowerCase is one setting of the count model's check: rounds of
// exposure a side (1,500 requests, or 1.5 thousand of them), base's rate
// and the threshold, all in the metric's unit.
type countPowerCase struct {
	name                       string
	rounds                     int
	exposure, baseRate, thresh float64
}

// countPower runs the check of "could detect" against fresh data for c:
// the median "could detect" of 40 A/A gates, then how many of gates gates
// whose head's rate is higher by that much are called a regression, and
// how many of gates whose head's rate is higher by δ0 are.
func countPower(c countPowerCase, gates int, seed uint64) (claim float64, caught, atD0 int) {
	const alpha = 0.01
	rng := rand.New(rand.NewPCG(seed, uint64(c.rounds)))
	var claims []float64
	for range 40 {
		r := decideFixed([]Input{countInput(rng, c.rounds, c.exposure, c.baseRate, c.baseRate, c.thresh)}, alpha)[0]
		claims = append(claims, *r.Detectable)
	}
	claim = Median(claims)
	decide := func(headRate float64) string {
		return Decisions([]Input{countInput(rng, c.rounds, c.exposure, c.baseRate, headRate, c.thresh)}, fixed(alpha, c.rounds), c.rounds)[0].Outcome
	}
	for range gates {
		if decide(c.baseRate+claim) == Regression {
			caught++
		}
		if decide(c.baseRate+IndifferenceShare*c.thresh) == Regression {
			atD0++
		}
	}
	return claim, caught, atD0
}

// countPowerCases are errors (1,500 requests a round, threshold 0.1%)
// with none, a few and many errors on base, and goroutines left alive
// (1.5 thousand requests a round, threshold 1 per thousand).
var countPowerCases = []countPowerCase{
	{"errors, none on base", 14, 1500, 0, 0.001},
	{"errors, 0.05% on base", 14, 1500, 0.0005, 0.001},
	{"errors, 0.2% on base, 28 rounds", 28, 1500, 0.002, 0.001},
	{"goroutines, none on base", 14, 1.5, 0, 1},
}

// TestCountCouldDetectHasItsPower checks "could detect" of the count model
// against the rate realised on fresh data: gates whose head's rate is
// higher by what A/A gates of the same base rate say they could detect are
// caught in about 90% of cases, and gates whose change is δ0 (half the
// threshold) fail at most alpha of the time. 300 gates make a standard
// error of 1.7 points at 90%; TestSimulation runs 2,000 a case.
func TestCountCouldDetectHasItsPower(t *testing.T) {
	simtest.Simulation(t)
	const gates = 300
	for i, c := range []countPowerCase{countPowerCases[0], countPowerCases[2]} {
		claim, caught, atD0 := countPower(c, gates, uint64(i+1))
		rate := float64(caught) / gates
		t.Logf("%s: could detect %.4g, caught %d of %d; at δ0 %d of %d failed", c.name, claim, caught, gates, atD0, gates)
		if rate < DetectablePower-0.05 || rate > DetectablePower+0.06 {
			t.Errorf("%s: could detect %.4g, caught in %.3f of gates, want about %v", c.name, claim, rate, DetectablePower)
		}
		if float64(atD0)/gates > 0.01+0.015 {
			t.Errorf("%s: a change of δ0 failed %d of %d gates", c.name, atD0, gates)
		}
	}
}

// TestCountSimulation prints the count model's table of docs/statistics.md
// ("Counts: errors and goroutines"): 2,000 gates a case.
//
//	go test ./internal/stats -run TestCountSimulation -simulate -v
func TestCountSimulation(t *testing.T) {
	if !*simulate {
		t.Skip("long; run with -simulate")
	}
	const gates = 2000
	out := "\n| case | rounds | could detect, median of 40 A/A gates | caught at that change | failed at δ0 |\n|---|---|---|---|---|\n"
	for i, c := range countPowerCases {
		claim, caught, atD0 := countPower(c, gates, uint64(100+i))
		out += fmt.Sprintf("| %s | %d | %.4g | %s | %s |\n", c.name, c.rounds, claim, rate(caught, gates), rate(atD0, gates))
	}
	t.Log(out)
}

// TestETestMatchesTheFullSum: the E-test's binary search over base's
// counts gives the p-value of the plain double sum over both sides'
// counts, for differences d below, at and above the observed one.
func TestETestMatchesTheFullSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		c := countData{headExposure: 1500 * float64(1+trial%20), baseExposure: 1500 * float64(1+trial%20), dispersion: 1}
		c.head = float64(poisson(rng, c.headExposure*0.003*rng.Float64()))
		c.base = float64(poisson(rng, c.baseExposure*0.003*rng.Float64()))
		for _, d := range []float64{-0.002, -0.0005, 0, 0.0005, c.difference(), 0.002} {
			if got, want := c.eTest(d), fullETest(c, d); math.Abs(got-want) > 1e-9 {
				t.Fatalf("%+v, d %v: p %v, the full sum %v", c, d, got, want)
			}
		}
	}
}

// fullETest is the E-test summed over every pair of counts.
func fullETest(c countData, d float64) float64 {
	observed := eStatistic(c.head, c.headExposure, c.base, c.baseExposure, d)
	if math.IsInf(observed, -1) {
		return 1
	}
	cut := observed
	if !math.IsInf(cut, 0) {
		cut -= 1e-9 * math.Max(1, math.Abs(cut))
	}
	headRate, baseRate := restrictedRates(c, d)
	headPMF, headFrom := poissonPMF(c.headExposure * headRate)
	basePMF, baseFrom := poissonPMF(c.baseExposure * baseRate)
	p := 0.0
	for i, ph := range headPMF {
		for j, pb := range basePMF {
			if eStatistic(float64(headFrom+i), c.headExposure, float64(baseFrom+j), c.baseExposure, d) >= cut {
				p += ph * pb
			}
		}
	}
	return min(1, p)
}

// BenchmarkCountOutcomes is the count model's cost in a gate's report:
// errors over 28 rounds of 1,500 requests a side, 0.2% of them failing on
// base and 0.3% on head, with could detect, its range and the OC.
func BenchmarkCountOutcomes(b *testing.B) {
	in := countInput(rand.New(rand.NewPCG(1, 2)), 28, 1500, 0.002, 0.003, 0.001)
	for b.Loop() {
		Outcomes([]Input{in}, fixed(0.01, 28), 28)
	}
}

// TestCountWithThousandsOfEvents: an OOM-killed side errs on thousands of
// requests; the count model must decide, not fail to converge.
func TestCountWithThousandsOfEvents(t *testing.T) {
	in := countInput(rand.New(rand.NewPCG(3, 3)), 14, 1500, 0.0005, 0.4, 0.001)
	if r := decideFixed([]Input{in}, 0.01)[0]; r.Outcome != Regression || r.Detectable == nil {
		t.Errorf("head errs on 40%% of requests: %s, could detect %v", r.Outcome, r.Detectable)
	}
}
