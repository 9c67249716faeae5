package stats

import (
	"math"
	"sort"

	"github.com/aclements/go-moremath/mathx"
	moremath "github.com/aclements/go-moremath/stats"
)

// A Count metric is events counted per round and side: failed requests,
// goroutines left alive. Per round they are a handful, mostly 0, so the
// per-round differences the signed-rank test ranks are ties and zeros, and
// the noise it would resample is none at all: "could detect" came out as
// the threshold itself, at well under its claimed power. Here the rounds
// are pooled instead. Each side's events are Poisson with a rate per unit
// of exposure (Input.BaseExposure, HeadExposure: requests, or thousands of
// them), and the change is head's rate minus base's, tested by the E-test
// of Krishnamoorthy and Thomson ("A more powerful test for comparing two
// Poisson means", J. Stat. Plan. Inference 119, 2004): a parametric
// bootstrap of the standardised difference at the rates the hypothesis
// allows, which they show is almost exact and handles a hypothesis of a
// difference d other than 0 (δ0 here).
//
// Events can come in bursts a Poisson model does not expect (a second of
// timeouts while the machine stalled). The rounds show it: Pearson's χ²
// of each side's per-round counts around its pooled rate, over its degrees
// of freedom, estimates the dispersion φ, and when φ > 1 every count and
// exposure is divided by φ (a quasi-Poisson model), so a burst weighs as
// the few independent events it is evidence of.

// countData is one count metric's evidence: each side's pooled events and
// exposure, already divided by the dispersion.
type countData struct {
	head, headExposure float64
	base, baseExposure float64
	// dispersion is φ, at least 1.
	dispersion float64
}

// pooledCounts pools the rounds of a Count input. Negative counts (a
// goroutine alive at a window's start that ended in it) count as 0: the
// model is of events added.
func pooledCounts(in Input) countData {
	c := countData{dispersion: 1}
	var chi2, df float64
	for _, side := range []struct {
		counts, exposures []float64
		events, exposure  *float64
	}{{in.Head, in.HeadExposure, &c.head, &c.headExposure}, {in.Base, in.BaseExposure, &c.base, &c.baseExposure}} {
		for i, x := range side.counts {
			*side.events += max(0, x)
			*side.exposure += side.exposures[i]
		}
		if *side.events == 0 || len(side.counts) < 2 {
			continue
		}
		rate := *side.events / *side.exposure
		for i, x := range side.counts {
			expected := rate * side.exposures[i]
			residual := max(0, x) - expected
			chi2 += residual * residual / expected
		}
		df += float64(len(side.counts) - 1)
	}
	if df > 0 {
		c.dispersion = max(1, chi2/df)
	}
	c.head, c.headExposure = c.head/c.dispersion, c.headExposure/c.dispersion
	c.base, c.baseExposure = c.base/c.dispersion, c.baseExposure/c.dispersion
	return c
}

// difference is head's rate minus base's (dispersion leaves rates alone).
func (c countData) difference() float64 {
	return ratePer(c.head, c.headExposure) - ratePer(c.base, c.baseExposure)
}

// swapped is c with the sides exchanged: the improvement test is the
// regression test of base over head.
func (c countData) swapped() countData {
	return countData{head: c.base, headExposure: c.baseExposure, base: c.head, baseExposure: c.headExposure, dispersion: c.dispersion}
}

func ratePer(events, exposure float64) float64 {
	if exposure <= 0 {
		return 0
	}
	return events / exposure
}

// eTest is the E-test's p-value of "head's rate exceeds base's by at most
// d" against "by more than d".
func (c countData) eTest(d float64) float64 {
	if c.headExposure <= 0 || c.baseExposure <= 0 {
		return 1
	}
	observed := eStatistic(c.head, c.headExposure, c.base, c.baseExposure, d)
	if math.IsInf(observed, -1) {
		return 1
	}
	headRate, baseRate := restrictedRates(c, d)
	headPMF, headFrom := poissonPMF(c.headExposure * headRate)
	basePMF, baseFrom := poissonPMF(c.baseExposure * baseRate)
	// A point counts when its statistic is at least the observed one, up to
	// rounding: the observed point itself always counts.
	cut := observed
	if !math.IsInf(cut, 0) {
		cut -= 1e-9 * math.Max(1, math.Abs(cut))
	}
	// Where head's rate is at least d, the statistic falls as base's count
	// rises, so the points that count are a run of base's smallest counts:
	// a binary search and a cumulative sum. Head's counts below d times its
	// exposure (a few, for the δ0 the gate tests) are summed point by point.
	below := 0
	for below < len(headPMF) && float64(headFrom+below)/c.headExposure-d < 0 {
		below++
	}
	if below*len(basePMF) > eTestGridLimit {
		// So many points only when both sides have thousands of events:
		// the statistic is normal at the restricted rates there.
		z := (ratePer(c.head, c.headExposure) - ratePer(c.base, c.baseExposure) - d) /
			math.Sqrt(headRate/c.headExposure+baseRate/c.baseExposure)
		return 1 - moremath.StdNormal.CDF(z)
	}
	cumulative := make([]float64, len(basePMF)+1)
	for j, pb := range basePMF {
		cumulative[j+1] = cumulative[j] + pb
	}
	p := 0.0
	for i, ph := range headPMF {
		k1 := float64(headFrom + i)
		if i < below {
			for j, pb := range basePMF {
				if eStatistic(k1, c.headExposure, float64(baseFrom+j), c.baseExposure, d) >= cut {
					p += ph * pb
				}
			}
			continue
		}
		counted := sort.Search(len(basePMF), func(j int) bool {
			return eStatistic(k1, c.headExposure, float64(baseFrom+j), c.baseExposure, d) < cut
		})
		p += ph * cumulative[counted]
	}
	return min(1, p)
}

// eTestGridLimit bounds the points the E-test sums one by one.
const eTestGridLimit = 1 << 22

// eStatistic is the E-test's standardised difference of the rates, with
// each rate's variance estimated from its own count. No events on either
// side has no variance: the statistic is then ±∞ by the sign of what is
// left of the difference, or 0.
func eStatistic(x1, n1, x2, n2, d float64) float64 {
	diff := x1/n1 - x2/n2 - d
	v := x1/(n1*n1) + x2/(n2*n2)
	if v == 0 {
		switch {
		case diff > 0:
			return math.Inf(1)
		case diff < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return diff / math.Sqrt(v)
}

// restrictedRates are the rates the hypothesis "head's exceeds base's by
// exactly d" fits to c (Krishnamoorthy and Thomson's estimate: the pooled
// rate, moved apart by d), kept non-negative.
func restrictedRates(c countData, d float64) (head, base float64) {
	total := c.headExposure + c.baseExposure
	base = (c.head+c.base)/total - d*c.headExposure/total
	head = base + d
	switch {
	case base < 0:
		base, head = 0, d
	case head < 0:
		base, head = -d, 0
	}
	return head, base
}

// poissonPMF is the Poisson(mean) probabilities of the counts from the
// returned first one, covering all but a negligible tail.
func poissonPMF(mean float64) ([]float64, int) {
	if mean <= 0 {
		return []float64{1}, 0
	}
	spread := 9*math.Sqrt(mean) + 10
	from := max(0, int(math.Floor(mean-spread)))
	to := int(math.Ceil(mean + spread))
	pmf := make([]float64, to-from+1)
	for i := range pmf {
		k := float64(from + i)
		lg, _ := math.Lgamma(k + 1)
		pmf[i] = math.Exp(k*math.Log(mean) - mean - lg)
	}
	// Terms this small change no p-value that matters: trim them.
	const negligible = 1e-15
	for len(pmf) > 1 && pmf[0] < negligible {
		pmf, from = pmf[1:], from+1
	}
	for len(pmf) > 1 && pmf[len(pmf)-1] < negligible {
		pmf = pmf[:len(pmf)-1]
	}
	return pmf, from
}

// poissonAtLeast is P(X >= k) for X ~ Poisson(mean).
func poissonAtLeast(k int, mean float64) float64 {
	switch {
	case k <= 0:
		return 1
	case mean <= 0:
		return 0
	}
	return gammaInc(float64(k), mean)
}

// minimumP is the smallest p-value the regression test could give with
// the events c pooled, all of them head's: Tarone's rule keeps a count
// metric in Holm's family only when this reaches the level. It depends on
// the total alone, not on how it splits (the evidence), as the number of
// non-zero differences does for the signed-rank test.
func (c countData) minimumP() float64 {
	all := countData{head: c.head + c.base, headExposure: c.headExposure, baseExposure: c.baseExposure, dispersion: c.dispersion}
	return all.eTest(0)
}

// lowerBound is the smallest difference d whose regression test at
// one-sided level alpha does not reject: the interval's lower bound, which
// is above δ0 exactly when the test against δ0 rejects (the p-value rises
// with d).
func (c countData) lowerBound(alpha float64) float64 {
	se := math.Sqrt(ratePer(c.head, c.headExposure*c.headExposure) + ratePer(c.base, c.baseExposure*c.baseExposure))
	floor := 1 / math.Min(c.headExposure, c.baseExposure)
	span := 12*se + (3-math.Log(alpha))*floor
	lo, hi := c.difference()-span, c.difference()
	for c.eTest(lo) > alpha {
		lo -= span
	}
	for range 60 {
		mid := (lo + hi) / 2
		if c.eTest(mid) <= alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// countEstimate is the difference of the pooled rates with the interval
// whose low bound holds at one-sided level lowAlpha and high bound at
// highAlpha. With no exposure on a side (every run of it left out) there
// is no difference to bound, and the search for a bound would not end.
func countEstimate(c countData, lowAlpha, highAlpha float64) Estimate {
	if c.headExposure <= 0 || c.baseExposure <= 0 {
		return Estimate{}
	}
	high, _ := c.upperBound(highAlpha)
	return Estimate{
		Center: c.difference(),
		Low:    c.lowerBound(lowAlpha),
		High:   high,
		Level:  1 - lowAlpha - highAlpha,
	}
}

// upperBound is the one-sided upper bound of the difference at level
// alpha and the tail it holds at, as the Walsh upperBound returns them:
// alpha, or a bound of zero that holds at no level (a tail of 1) with no
// exposure on a side, as countEstimate.
func (c countData) upperBound(alpha float64) (bound, tail float64) {
	if c.headExposure <= 0 || c.baseExposure <= 0 {
		return 0, 1
	}
	return -c.swapped().lowerBound(alpha), alpha
}

// countDetectable is a Count metric's Detectable, its range and its
// operating characteristic under the count model: head's events Poisson at
// base's rate plus the change, base's at its observed rate, both over the
// gate's exposures divided by the dispersion, decided as outcomes decides
// (the E-test against δ0 at level alpha, and the estimate above the
// threshold). The power is computed, not simulated: for each count of
// base's, the fewest events of head's that the decision calls a
// regression, and the Poisson chance of at least that many. The range is
// the same answer at base's rate as low, or as high, as its events
// plausibly allow (the 10% and 90% bounds of a Poisson rate).
//
// The test divides by the dispersion it estimates from the rounds that
// have events, which is itself random, and above 1 about half the time
// even for Poisson rounds: the power is averaged over three equally likely
// estimates (the 1/6, 1/2 and 5/6 quantiles of χ²/df times the observed
// dispersion, at least 1), so that it is the power of the test as it will
// run. TestCountCouldDetectHasItsPower checks it against fresh data.
func countDetectable(in Input, c countData, alpha float64) (*float64, *[2]float64, []OCPoint) {
	if len(in.Head) == 0 || c.headExposure <= 0 || c.baseExposure <= 0 {
		return nil, nil, nil
	}
	d0, _ := in.indifference()
	// The dispersion's degrees of freedom, as pooledCounts counts them:
	// head's rounds have events when it changed, base's when it has any.
	// The sides may have different numbers of rounds (a run whose events
	// do not count leaves the other side's in).
	df := float64(len(in.Head) - 1)
	if c.base > 0 {
		df += float64(len(in.Base) - 1)
	}
	headExposure, baseExposure := c.headExposure*c.dispersion, c.baseExposure*c.dispersion
	var models countModels
	for _, q := range []float64{1.0 / 6, 0.5, 5.0 / 6} {
		phi := c.dispersion
		if df > 0 {
			phi = max(1, c.dispersion*chiSquareQuantile(df, q)/df)
		}
		models = append(models, countModel{data: countData{headExposure: headExposure / phi, baseExposure: baseExposure / phi, dispersion: phi},
			threshold: in.Threshold, d0: d0, alpha: alpha, cut: map[int]int{}})
	}
	baseRate := ratePer(c.base, c.baseExposure)
	shift := models.detectable(baseRate)
	if shift == nil {
		return nil, nil, nil
	}
	low, high := poissonRateBounds(c.base, c.baseExposure, (1-noiseRange)/2)
	span := [2]float64{*shift, *shift}
	if s := models.detectable(low); s != nil {
		span[0] = *s
	}
	if s := models.detectable(high); s != nil {
		span[1] = *s
	}
	oc := operatingCharacteristic(in, func(change float64) float64 { return models.power(baseRate, change) })
	return shift, &span, oc
}

// countModel computes the power of a count metric's decision at one
// dispersion.
type countModel struct {
	// data holds the exposures (after the dispersion) the experiments
	// have; their counts are drawn.
	data                 countData
	threshold, d0, alpha float64
	// cut caches, by base's count, head's fewest events that are caught.
	cut map[int]int
}

// caught says whether the decision calls head's k1 events against base's
// k2 a regression.
func (m countModel) caught(k1, k2 int) bool {
	c := m.data
	c.head, c.base = float64(k1), float64(k2)
	return c.difference() > m.threshold && c.eTest(m.d0) <= m.alpha
}

// fewestCaught is the fewest events of head's caught against base's k2
// (more events only make the decision likelier), searched from guess
// (the answer for a neighbouring k2 is a step or two away); -1 when none
// are.
func (m countModel) fewestCaught(k2, guess int) int {
	if k, ok := m.cut[k2]; ok {
		return k
	}
	k := max(0, guess)
	if m.caught(k, k2) {
		for k > 0 && m.caught(k-1, k2) {
			k--
		}
	} else {
		// Gallop up to a caught count, then halve back to the first.
		lo, step := k, 1
		for !m.caught(k+step, k2) {
			if step > 1<<30 {
				m.cut[k2] = -1
				return -1
			}
			lo, step = k+step, step*2
		}
		hi := k + step
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if m.caught(mid, k2) {
				hi = mid
			} else {
				lo = mid
			}
		}
		k = hi
	}
	m.cut[k2] = k
	return k
}

// power is the chance that the decision calls a change of change a
// regression when base's rate is baseRate.
func (m countModel) power(baseRate, change float64) float64 {
	headMean := m.data.headExposure * max(0, baseRate+change)
	pmf, from := poissonPMF(m.data.baseExposure * baseRate)
	p, guess := 0.0, 0
	for i, pb := range pmf {
		k := m.fewestCaught(from+i, guess)
		if k < 0 {
			continue
		}
		p, guess = p+pb*poissonAtLeast(k, headMean), k
	}
	return p
}

// countModels are a decision's models at equally likely dispersions.
type countModels []countModel

// power is the models' average power.
func (ms countModels) power(baseRate, change float64) float64 {
	p := 0.0
	for _, m := range ms {
		p += m.power(baseRate, change)
	}
	return p / float64(len(ms))
}

// detectable is the smallest change caught with DetectablePower at
// baseRate; nil when none is.
func (ms countModels) detectable(baseRate float64) *float64 {
	unit := max(ms[0].threshold, 1/ms[0].data.headExposure)
	hi := unit
	for ms.power(baseRate, hi) < DetectablePower {
		if hi > 1e12*unit {
			return nil
		}
		hi *= 2
	}
	lo := 0.0
	for range 40 {
		mid := (lo + hi) / 2
		if ms.power(baseRate, mid) >= DetectablePower {
			hi = mid
		} else {
			lo = mid
		}
	}
	return &hi
}

// gammaInc is the regularised lower incomplete gamma function P(a, x),
// which is P(X >= a) for X ~ Poisson(x) at whole a. go-moremath's series
// stops converging for a in the hundreds and more (failed requests of
// an OOM-killed side), where the Wilson–Hilferty approximation is within
// a fraction of a percent.
func gammaInc(a, x float64) float64 {
	if a < 200 {
		return mathx.GammaInc(a, x)
	}
	if x <= 0 {
		return 0
	}
	v := 1 / (9 * a)
	return moremath.StdNormal.CDF((math.Cbrt(x/a) - (1 - v)) / math.Sqrt(v))
}

// chiSquareQuantile is the p quantile of χ² with df degrees of freedom
// (Wilson–Hilferty: within 2% from 3 degrees of freedom up).
func chiSquareQuantile(df, p float64) float64 {
	a := 2 / (9 * df)
	return df * math.Max(0, math.Pow(1-a+moremath.StdNormal.InvCDF(p)*math.Sqrt(a), 3))
}

// poissonRateBounds are the rates below and above which events over
// exposure fall with probability tail each: exact (Garwood) bounds,
// continued to the non-integer counts the dispersion makes.
func poissonRateBounds(events, exposure, tail float64) (low, high float64) {
	// solve finds the mean at which f, rising with it, reaches target.
	solve := func(f func(mean float64) float64, target float64) float64 {
		lo, hi := 0.0, events+20*math.Sqrt(events+1)+20
		for range 60 {
			mid := (lo + hi) / 2
			if f(mid) < target {
				lo = mid
			} else {
				hi = mid
			}
		}
		return (lo + hi) / 2 / exposure
	}
	if events > 0 {
		// The low bound: where P(X >= events) is tail.
		low = solve(func(mean float64) float64 { return gammaInc(events, mean) }, tail)
	}
	// The high bound: where P(X <= events) is tail.
	high = solve(func(mean float64) float64 { return gammaInc(events+1, mean) }, 1-tail)
	return low, high
}
