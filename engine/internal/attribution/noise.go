package attribution

import (
	"math"
	"sort"

	moremath "github.com/aclements/go-moremath/stats"
)

// familyAlpha is the chance that sampling and round-to-round noise alone
// put any function of a gate in "Where it changed": the per-function test
// is Bonferroni-corrected over every function it compares, so an A/A gate
// names none in about 95% of gates.
const familyAlpha = 0.05

// criticalZ is how many standard deviations a function's difference must
// exceed when m functions are compared (two-sided).
func criticalZ(m int) float64 {
	return moremath.StdNormal.InvCDF(1 - familyAlpha/(2*float64(max(m, 1))))
}

// counts are one function's raw samples per round of each side, beside
// the rounds' exposures (requests, or 1 per run for a snapshot).
type counts struct {
	raw, exposure [2][]float64
}

func (c counts) total(side int) float64 { return sum(c.raw[side]) }

// dispersion is the function's Pearson χ² of its rounds around each side's
// own rate, and its degrees of freedom: how much more than Poisson
// sampling its count varies from round to round. Garbage collection,
// timing and each round's layout move some functions' costs between
// processes far beyond their sampling noise.
func (c counts) dispersion() (chi2, df float64) {
	for side := range 2 {
		events, exposure := sum(c.raw[side]), sum(c.exposure[side])
		if events == 0 || len(c.raw[side]) < 2 {
			continue
		}
		rate := events / exposure
		for r, x := range c.raw[side] {
			expected := rate * c.exposure[side][r]
			chi2 += (x - expected) * (x - expected) / expected
		}
		df += float64(len(c.raw[side]) - 1)
	}
	return chi2, df
}

// typicalDispersion is the median dispersion of the functions with at
// least 10 samples a side: a floor for each function's own, whose few
// rounds (3 profile rounds a side give 4 degrees of freedom) can make a
// jittery function look steady by chance.
func typicalDispersion(all []counts) float64 {
	var ds []float64
	for _, c := range all {
		if c.total(0) < 10 || c.total(1) < 10 {
			continue
		}
		if chi2, df := c.dispersion(); df > 0 {
			ds = append(ds, chi2/df)
		}
	}
	if len(ds) < 5 {
		return 1
	}
	sort.Float64s(ds)
	return max(1, ds[len(ds)/2])
}

// beyondNoise says whether a function's per-request difference is beyond
// its noise: Δ = h·(Eb/Eh) − b against σ = √(φ·(b + h·(Eb/Eh)²)), φ the
// larger of its own dispersion and the profile's typical one.
func beyondNoise(c counts, typical, z float64) bool {
	b, h := c.total(0), c.total(1)
	ratio := sum(c.exposure[0]) / sum(c.exposure[1])
	phi := typical
	if chi2, df := c.dispersion(); df > 0 {
		phi = max(phi, chi2/df)
	}
	return math.Abs(h*ratio-b) > z*math.Sqrt(phi*(b+h*ratio*ratio))
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
