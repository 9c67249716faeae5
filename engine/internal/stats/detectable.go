package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// resamples is the number of simulated experiments behind Detectable: the
// 90% quantile of a thousand is within about a percentage point of power.
const resamples = 1000

// resampleLimit is the largest number of pairs for which Detectable
// simulates the decision; past it the Hodges–Lehmann estimate is normal
// enough for a formula, and resampling would cost n² per experiment.
const resampleLimit = 40

// detectable is the smallest change, on the metric's scale, that the
// decision at one-sided level alpha (this look's level over the family)
// calls a regression with probability DetectablePower, for experiments
// like this one: the same number of pairs and the same noise. It is nil
// when even identical signs on every pair cannot reach alpha.
//
// The noise is drawn from the differences' residuals around their
// estimate, each given a random sign (the symmetric distribution the
// signed-rank test assumes; see simulateExperiments). For residuals x and a shift
// δ the decision is a regression when both
//
//	HL(x)+δ > threshold            the estimate is above the threshold, and
//	A_k(x)+δ > δ0                  the exact test against δ0 is significant,
//
// where A_k is the (k+1)-th smallest Walsh average, k the test's critical
// count (at most k Walsh averages may be below δ0) and δ0 the change the
// test's hypothesis allows (Input.indifference). So each simulated
// experiment is caught exactly from δ = max(threshold-HL(x), δ0-A_k(x))
// on, and the detectable change is the DetectablePower quantile of those
// shifts: the exact test's discreteness, its indifference zone and the
// threshold condition are all in it.
//
// walsh are the Walsh averages of d (reordered here) and center their
// median, the estimate.
//
// The same experiments give the decision's operating characteristic at
// this look (OCPoint): the share of them caught at each true change.
//
// The rounds only estimate the noise, so the answer has a range (the
// second result): the same quantile if the noise were as low, or as high,
// as the rounds plausibly allow (noiseLevels), where the answer itself
// draws the level from all it allows.
func detectable(in Input, d, walsh []float64, center, alpha float64) (*float64, *[2]float64, []OCPoint) {
	n := len(d)
	if n == 0 || math.Pow(0.5, float64(n)) > alpha {
		return nil, nil, nil
	}
	threshold := in.Threshold
	if in.Scale == Relative {
		threshold = math.Log1p(threshold)
	}
	d0, _ := in.indifference()
	k, _ := criticalCount(n, alpha)
	var shift float64
	var shiftAt func(noise float64) float64
	var caught func(change float64) float64
	if n <= resampleLimit {
		sim := simulateExperiments(d, center, k)
		quantile := func(shifts []float64) float64 { return shifts[int(math.Ceil(DetectablePower*resamples))-1] }
		shifts := sim.shifts(threshold, d0, nil)
		shift = quantile(shifts)
		shiftAt = func(noise float64) float64 { return quantile(sim.shifts(threshold, d0, &noise)) }
		caught = func(change float64) float64 {
			at, _ := slices.BinarySearch(shifts, math.Nextafter(change, math.Inf(1)))
			return float64(at) / float64(len(shifts))
		}
	} else {
		// HL(x) is normal with standard error s: the decision catches δ
		// when max(threshold, δ0+c) - δ < HL(x) - center, c being how far
		// the significance bound lies below the estimate. The distances
		// from the estimate to the interval's bounds at 10% measure z₀.₉·s.
		m := len(walsh)
		k10, _ := criticalCount(n, 1-DetectablePower)
		c := (center - selectNth(walsh, k) + selectNth(walsh, m-1-k) - center) / 2
		spread := (center - selectNth(walsh, k10) + selectNth(walsh, m-1-k10) - center) / 2
		bound := max(threshold, d0+c)
		shift = bound + spread
		shiftAt = func(noise float64) float64 { return max(threshold, d0+noise*c) + noise*spread }
		s := spread / moremath.StdNormal.InvCDF(DetectablePower)
		caught = func(change float64) float64 { return moremath.StdNormal.CDF((change - bound) / s) }
	}
	oc := operatingCharacteristic(in, caught)
	low, high := noiseLevels(n)
	span := [2]float64{shiftAt(low), shiftAt(high)}
	if in.Scale == Relative {
		shift = math.Expm1(shift)
		span = [2]float64{math.Expm1(span[0]), math.Expm1(span[1])}
	}
	return &shift, &span, oc
}

// noiseRange is the coverage of detectable's range: the noise levels
// between its 10% and 90% quantiles.
const noiseRange = 0.8

// noiseLevels are the lowest and highest noise, as multiples of the
// observed residuals' level, that n rounds plausibly allow: the
// (1-noiseRange)/2 and (1+noiseRange)/2 quantiles of τ = √((n-1)/χ²ₙ₋₁),
// the level simulateExperiments draws (χ² by the Wilson–Hilferty
// approximation, within 2% of the exact quantile from 3 degrees of
// freedom up). One round has no spread to estimate: 1 and 1.
func noiseLevels(n int) (low, high float64) {
	if n < 2 {
		return 1, 1
	}
	df := float64(n - 1)
	tail := (1 - noiseRange) / 2
	return math.Sqrt(df / chiSquareQuantile(df, 1-tail)), math.Sqrt(df / max(chiSquareQuantile(df, tail), 1e-9*df))
}

// OCPoint is one point of a metric's operating characteristic at a look:
// the share of experiments like the observed one (the same rounds and
// noise) that the decision calls a regression when the true change is
// Change (on the metric's scale, a fraction for Relative metrics).
type OCPoint struct {
	Change, Caught float64
}

// ocSteps are the true changes of the operating characteristic, in
// multiples of the threshold: 0 to twice it.
var ocSteps = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2}

// operatingCharacteristic evaluates caught (of a change on the
// differences' scale) at ocSteps of the threshold of a gating metric;
// none for a metric that does not gate or has no threshold.
func operatingCharacteristic(in Input, caught func(float64) float64) []OCPoint {
	if !in.Gates || !(in.Threshold > 0) {
		return nil
	}
	oc := make([]OCPoint, len(ocSteps))
	for i, step := range ocSteps {
		change := step * in.Threshold
		onScale := change
		if in.Scale == Relative {
			onScale = math.Log1p(change)
		}
		oc[i] = OCPoint{Change: change, Caught: caught(onScale)}
	}
	return oc
}

// simulated are the experiments behind detectable. Each draws n residuals
// with replacement, gives each a random sign, and scales them all by τ =
// √((n-1)/χ²ₙ₋₁): the residuals only estimate the noise, and a noise level
// drawn from what they allow (τ² has mean (n-1)/(n-3)) keeps the answer
// from promising 90% to experiments noisier than the one observed. The
// simulations of docs/statistics.md check the result against the power
// realised on fresh data.
//
// Each experiment is kept before its scaling (the Walsh averages, and so
// the estimate and the test's bound, scale with its residuals), so that
// the same draws also answer for one fixed noise level (shifts).
type simulated struct {
	// estimate and bound are the Hodges–Lehmann estimate and the test's
	// bound (the (k+1)-th smallest Walsh average) of each experiment's
	// unscaled residuals; noise its τ.
	estimate, bound, noise []float64
}

// simulateExperiments draws the experiments of detectable from the differences d,
// their estimate center and the test's critical count k.
func simulateExperiments(d []float64, center float64, k int) simulated {
	n := len(d)
	// Residuals around the estimate, scaled up by √(n/(n-1)) for the
	// degree of freedom the estimate took.
	residuals := make([]float64, n)
	scale := 1.0
	if n > 1 {
		scale = math.Sqrt(float64(n) / float64(n-1))
	}
	for i, x := range d {
		residuals[i] = (x - center) * scale
	}
	// A fixed seed: the same data always give the same answer.
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	x := make([]float64, n)
	walsh := make([]float64, 0, n*(n+1)/2)
	sim := simulated{estimate: make([]float64, resamples), bound: make([]float64, resamples), noise: make([]float64, resamples)}
	for b := range resamples {
		tau := 1.0
		if n > 1 {
			chi := 0.0
			for range n - 1 {
				z := rng.NormFloat64()
				chi += z * z
			}
			tau = math.Sqrt(float64(n-1) / chi)
		}
		var signs uint64
		for i := range x {
			if i%64 == 0 {
				signs = rng.Uint64()
			}
			e := residuals[rng.IntN(n)]
			if signs&1 == 1 {
				e = -e
			}
			signs >>= 1
			x[i] = e
		}
		walsh = walshAverages(x, walsh)
		sim.estimate[b], sim.bound[b], sim.noise[b] = medianOf(walsh), selectNth(walsh, k), tau
	}
	return sim
}

// shifts are the shifts each experiment needs to be caught (see
// detectable), sorted: at its own noise level, or at *noise when it is
// set.
func (sim simulated) shifts(threshold, d0 float64, noise *float64) []float64 {
	shifts := make([]float64, len(sim.estimate))
	for b := range shifts {
		tau := sim.noise[b]
		if noise != nil {
			tau = *noise
		}
		shifts[b] = max(threshold-tau*sim.estimate[b], d0-tau*sim.bound[b])
	}
	slices.Sort(shifts)
	return shifts
}
