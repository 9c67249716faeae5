package stats

import (
	"math"
	"math/rand/v2"
	"slices"
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
// signed-rank test assumes; see resampledShift). For residuals x and a shift
// δ the decision is a regression when both
//
//	HL(x)+δ > threshold            the estimate is above the threshold, and
//	A_k(x)+δ > 0                   the exact test is significant,
//
// where A_k is the (k+1)-th smallest Walsh average and k the test's
// critical count (at most k Walsh averages may be negative). So each
// simulated experiment is caught exactly from δ = max(threshold-HL(x),
// -A_k(x)) on, and the detectable change is the DetectablePower quantile
// of those shifts: the exact test's discreteness and the threshold
// condition are both in it.
//
// walsh are the Walsh averages of d (reordered here) and center their
// median, the estimate.
func detectable(in Input, d, walsh []float64, center, alpha float64) *float64 {
	n := len(d)
	if n == 0 || math.Pow(0.5, float64(n)) > alpha {
		return nil
	}
	threshold := in.Threshold
	if in.Scale == Relative {
		threshold = math.Log1p(threshold)
	}
	k, _ := criticalCount(n, alpha)
	var shift float64
	if n <= resampleLimit {
		shift = resampledShift(d, center, threshold, k)
	} else {
		// HL(x) is normal with standard error s: the decision catches δ
		// when max(threshold, c) - δ < HL(x) - center, c being how far the
		// significance bound lies below the estimate. The distances from
		// the estimate to the interval's bounds at 10% measure z₀.₉·s.
		m := len(walsh)
		k10, _ := criticalCount(n, 1-DetectablePower)
		c := (center - selectNth(walsh, k) + selectNth(walsh, m-1-k) - center) / 2
		spread := (center - selectNth(walsh, k10) + selectNth(walsh, m-1-k10) - center) / 2
		shift = max(threshold, c) + spread
	}
	if in.Scale == Relative {
		shift = math.Expm1(shift)
	}
	return &shift
}

// resampledShift is the DetectablePower quantile of the shift each
// simulated experiment needs (see detectable). Each experiment draws n
// residuals with replacement, gives each a random sign, and scales them all
// by τ = √((n-1)/χ²ₙ₋₁): the residuals only estimate the noise, and a
// noise level drawn from what they allow (τ² has mean (n-1)/(n-3)) keeps
// the answer from promising 90% to experiments noisier than the one
// observed. The simulations of docs/statistics.md check the result against
// the power realised on fresh data.
func resampledShift(d []float64, center, threshold float64, k int) float64 {
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
	shifts := make([]float64, resamples)
	for b := range shifts {
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
			e := residuals[rng.IntN(n)] * tau
			if signs&1 == 1 {
				e = -e
			}
			signs >>= 1
			x[i] = e
		}
		walsh = walshAverages(x, walsh)
		significant := -selectNth(walsh, k)
		shifts[b] = max(threshold-medianOf(walsh), significant)
	}
	slices.Sort(shifts)
	return shifts[int(math.Ceil(DetectablePower*resamples))-1]
}
