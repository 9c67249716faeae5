package stats

import (
	"math"
	"sort"

	moremath "github.com/aclements/go-moremath/stats"
)

// Outcomes of one metric.
const (
	Regression   = "regression"
	Improvement  = "improvement"
	Unchanged    = "unchanged"
	Inconclusive = "inconclusive"
)

// Scale is how a metric's pairs are compared.
type Scale int

const (
	// Relative metrics (CPU, allocations, latency) compare log(head/base):
	// ratios are symmetric, and run-to-run drift scales with the value.
	Relative Scale = iota
	// Absolute metrics (error rate) compare head-base: a rate can be 0.
	Absolute
)

// Input is one metric's paired values, base[i] and head[i] from pair i.
type Input struct {
	Name, Unit string
	Base, Head []float64
	Scale      Scale
	// Threshold is the smallest change that matters: a fraction for
	// Relative metrics, an absolute amount for Absolute ones.
	Threshold float64
	// Gates says whether the metric takes part in the verdict (and in
	// Holm's correction); others are reported with the same statistics.
	Gates bool
}

// Result is one metric's comparison. Delta, CI and Detectable are
// fractions for Relative metrics and absolute amounts otherwise.
type Result struct {
	Input
	// Pairs is the number of pairs used; Dropped those left out because a
	// relative value was not positive.
	Pairs, Dropped int
	BaseMedian     float64
	HeadMedian     float64
	Delta          float64
	CI             [2]float64
	CILevel        float64
	// PRegression and PImprovement are the one-sided p-values after Holm's
	// correction (gating metrics) or as measured (the others).
	PRegression, PImprovement float64
	Outcome                   string
	// Detectable is the smallest change this run would have found
	// significant with 80% power; nil when no change could be (too few
	// pairs for the exact test to reach alpha).
	Detectable *float64
}

// power is the chance of finding a change of the size Detectable reports.
const power = 0.8

// Decide compares every metric at significance level alpha. A metric
// regresses when its increase is significant after Holm's correction AND
// its estimate is above its threshold; it is inconclusive when the
// confidence interval reaches past the threshold without that; it improved
// when its decrease is significant and beyond the threshold.
func Decide(inputs []Input, alpha float64) []Result {
	results := make([]Result, len(inputs))
	var gating []int
	for i, in := range inputs {
		results[i] = compare(in, alpha)
		if in.Gates {
			gating = append(gating, i)
		}
	}
	adjust := func(get func(*Result) *float64) {
		p := make([]float64, len(gating))
		for j, i := range gating {
			p[j] = *get(&results[i])
		}
		for j, adjusted := range Holm(p) {
			*get(&results[gating[j]]) = adjusted
		}
	}
	adjust(func(r *Result) *float64 { return &r.PRegression })
	adjust(func(r *Result) *float64 { return &r.PImprovement })
	family := max(1, len(gating))
	for i := range results {
		r := &results[i]
		r.Outcome = outcome(r, alpha)
		if r.Gates {
			r.Detectable = detectable(r.Input, r.differences(), alpha/float64(family))
		} else {
			r.Detectable = detectable(r.Input, r.differences(), alpha)
		}
	}
	return results
}

func compare(in Input, alpha float64) Result {
	r := Result{Input: in}
	d := r.differences()
	r.Pairs, r.Dropped = len(d), len(in.Base)-len(d)
	r.BaseMedian, r.HeadMedian = Median(in.Base), Median(in.Head)
	test := SignedRankTest(d)
	r.PRegression, r.PImprovement = test.PGreater, test.PLess
	est := HodgesLehmann(d, alpha)
	r.Delta, r.CI, r.CILevel = r.toScale(est.Center), [2]float64{r.toScale(est.Low), r.toScale(est.High)}, est.Level
	if len(d) == 0 {
		r.CILevel = 0
	}
	return r
}

func outcome(r *Result, alpha float64) string {
	switch {
	case r.Pairs == 0:
		return Inconclusive
	case r.PRegression <= alpha && r.Delta > r.Threshold:
		return Regression
	case r.PImprovement <= alpha && r.Delta < -r.Threshold:
		return Improvement
	case r.CI[1] > r.Threshold:
		return Inconclusive
	case r.CILevel < 1-2*alpha-1e-12 && r.CI != [2]float64{0, 0}:
		// Too few pairs for the interval to reach its level: a narrow
		// interval then proves nothing. (Identical pairs, such as no
		// errors on either side, are the exception.)
		return Inconclusive
	}
	return Unchanged
}

// differences are the per-pair log-ratios (Relative) or differences.
func (r *Result) differences() []float64 {
	d := make([]float64, 0, len(r.Base))
	for i := range r.Base {
		b, h := r.Base[i], r.Head[i]
		if r.Scale == Absolute {
			d = append(d, h-b)
		} else if b > 0 && h > 0 {
			d = append(d, math.Log(h/b))
		}
	}
	return d
}

// toScale turns a log-ratio into a relative change; absolute stays.
func (r *Result) toScale(x float64) float64 {
	if r.Scale == Relative {
		return math.Expm1(x)
	}
	return x
}

// detectable approximates the smallest shift the signed-rank test finds
// at level alpha with the given power from the observed spread of the
// differences: the t-test's (t_{1-α} + t_{power})·s/√n, inflated by
// √(π/3) for the signed-rank test's efficiency under normality.
func detectable(in Input, d []float64, alpha float64) *float64 {
	n := len(d)
	if n < 2 || math.Pow(0.5, float64(n)) > alpha {
		return nil
	}
	mean := 0.0
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	s := math.Sqrt(ss / float64(n-1))
	t := moremath.TDist{V: float64(n - 1)}
	quantile := moremath.InvCDF(t)
	shift := (quantile(1-alpha) + quantile(power)) * s / math.Sqrt(float64(n)) * math.Sqrt(math.Pi/3)
	if in.Scale == Relative {
		shift = math.Expm1(shift)
	}
	return &shift
}

// Median is the median of values (0 for none); values is not modified.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	return median(s)
}
