package stats

import (
	"math"
	"sort"
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
	// Binary metrics are 1 or 0 per side and round (whether the side
	// failed in it): compared head-base by the exact sign test, their
	// change the difference of the sides' rates (binary.go). Their
	// threshold is 0: any significant excess is a regression.
	Binary
	// Count metrics are events per round and side (Base and Head) over an
	// exposure (BaseExposure and HeadExposure), pooled over the rounds and
	// compared as the difference of the sides' rates by a count model
	// (count.go): their per-round values are too few and too tied for the
	// signed-rank test to say how small a change it could catch.
	Count
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
	// BaseExposure and HeadExposure are, for a Count metric, what each
	// round's count is of (requests, or thousands of them): the rate is
	// the count over it, in the metric's unit.
	BaseExposure, HeadExposure []float64
}

// Result is one metric's comparison. Delta, CI and Detectable are
// fractions for Relative metrics and absolute amounts otherwise.
type Result struct {
	Input
	// Pairs is the number of pairs used; Dropped those left out because a
	// relative value was not positive.
	Pairs, Dropped int
	// BaseMedian and HeadMedian are the sides' medians; for a Binary
	// metric, their means: the share of rounds in which each side failed;
	// for a Count metric, the pooled rates: all rounds' events over all
	// their exposure.
	BaseMedian float64
	HeadMedian float64
	// Delta is the Hodges–Lehmann estimate and CI its exact interval, each
	// bound at the level its one-sided test was taken at (so the interval
	// excludes 0 exactly when the test is significant; CILevel is its
	// coverage).
	Delta   float64
	CI      [2]float64
	CILevel float64
	// PRegression and PImprovement are the one-sided p-values adjusted for
	// the gating metrics (Holm, within the family) and for the looks
	// (divided by the part of Alpha this look spends), so a gating metric
	// is significant when its p is at most Plan.Alpha. Metrics that do not
	// gate are adjusted for the looks only.
	PRegression, PImprovement float64
	Outcome                   string
	// RuledOutAbove is the increase this look rules out at the miss rate:
	// the upper end of the one-sided interval at MissRate's share for this
	// look, held with confidence RuledOutLevel. A metric is unchanged only
	// when it is at most the threshold. Its level is looser than the
	// interval's (CI), whose ends are the tests' at alpha: passing a change
	// at the threshold is the error it bounds, as "could detect" accepts
	// missing one 10% of the time. Zero, with RuledOutLevel zero, for a
	// Binary metric (unchanged there is "not significant") and with no
	// pairs.
	RuledOutAbove float64
	RuledOutLevel float64
	// Detectable is the smallest change the decision at this look catches
	// with probability DetectablePower, the threshold condition included
	// (so it is always above the threshold); nil when no change could be
	// caught (too few pairs for the exact test to reach the level).
	Detectable *float64
	// DetectableRange is Detectable if the noise were as low (first) or as
	// high (second) as the rounds plausibly allow: the central 80% of the
	// noise levels Detectable's simulation draws from. Nil where
	// Detectable is, and for a metric with no noise to estimate (failures).
	DetectableRange *[2]float64
	// OC is the decision's operating characteristic at this look, from
	// the experiments behind Detectable: the share of them called a
	// regression at true changes from 0 to twice the threshold. Nil where
	// Detectable is, and for a metric that does not gate or whose
	// threshold is 0.
	OC []OCPoint
	// Rounds is the number of valid rounds analysed; AtLook says whether
	// that is one of the plan's looks (or at least its maximum), where the
	// experiment may stop.
	Rounds int
	AtLook bool
	// Level is the significance level this look spends, before Holm's
	// correction (Plan.LevelAt).
	Level float64
	// Family is the number of gating metrics in Holm's family at this look:
	// those with enough non-zero differences for their exact test to reach
	// the level (Tarone's rule; a metric with none, such as errors when
	// neither side failed, leaves it). InFamily says whether this metric is
	// one of them; only those can be called a regression or improvement.
	Family   int
	InFamily bool
}

// DetectablePower is the chance with which a change of the size Result.
// Detectable is caught.
const DetectablePower = 0.9

// MissRate is the largest chance, spent over the looks as alpha is (Plan.
// LevelAt's shares of it), that a metric whose true change is its
// threshold comes out unchanged: "unchanged" needs the increase beyond the
// threshold ruled out at this rate (Result.RuledOutAbove), not at alpha's.
// It is the complement of DetectablePower: a gate that says it could
// detect a change catches it 90% of the time, and one that passes has
// ruled out a change at the threshold with the same 90%. A pass stops the
// experiment, so a looser rule for it only removes looks: the chance of a
// false failure stays bounded by alpha (docs/statistics.md, "The stopping
// rule"), while the gates that end unchanged stop at the first look far
// more often (docs/statistics.md, "Unchanged at a miss rate").
const MissRate = 1 - DetectablePower

// missRate is the rate in use: MissRate, or 0 (unchanged at the
// improvement test's level, the rule before it) in the simulations that
// compare the two.
var missRate = MissRate

// IndifferenceShare places δ0, the change below which a metric must almost
// never be called a regression, at this share of its threshold. The
// hypothesis each one-sided test rejects is "the change is at most δ0" (an
// increase of δ0 for a regression, a decrease of δ0 for an improvement),
// not "there is no change": so a change of half the threshold or less
// fails a gate with probability at most alpha, at every look, however many
// rounds it runs, while the threshold condition (the estimate beyond the
// threshold) keeps changes below the threshold from failing more than
// about half the time. docs/statistics.md, "The threshold inside the
// hypothesis", shows the operating characteristic this gives.
const IndifferenceShare = 0.5

// indifferenceShare is the share in use: IndifferenceShare, or 0 (the rule
// before it, significant against no change) in the simulations that
// compare the two.
var indifferenceShare = IndifferenceShare

// Outcomes tests every metric after n valid rounds of plan p. A gating
// metric regresses when its increase beyond δ0 (IndifferenceShare of its
// threshold) is significant at this look's level after Holm's correction
// across the family AND its estimate is above its threshold; it improved
// when its decrease beyond δ0 is significant and its estimate beyond the
// threshold; it is unchanged when an increase beyond the threshold is
// ruled out at the miss rate (MissRate's share for this look), and
// inconclusive otherwise. Analyses between looks are charged to the next
// look (Plan.LevelAt) and never let the experiment stop (MayStop).
func Outcomes(inputs []Input, p Plan, n int) []Result {
	return outcomes(inputs, p, n, func(Input) bool { return true })
}

// Decisions is Outcomes without Detectable, its range and the operating
// characteristic, which cost far more than the decision: enough to know
// whether an experiment may stop after a round.
func Decisions(inputs []Input, p Plan, n int) []Result {
	return outcomes(inputs, p, n, nil)
}

// outcomes is Outcomes, computing Detectable only for the inputs detect
// accepts (none when nil): the simulations need it for one metric at most.
func outcomes(inputs []Input, p Plan, n int, detect func(Input) bool) []Result {
	level := p.LevelAt(n)
	share := 1.0
	if p.Alpha > 0 {
		share = level / p.Alpha
	}
	results := make([]Result, len(inputs))
	diffs := make([][]float64, len(inputs))
	// tests are against no change: Tarone's family is chosen by their
	// number of non-zero differences. upTests and downTests are against
	// δ0 up and down: they decide.
	tests := make([]SignedRank, len(inputs))
	upTests, downTests := make([]SignedRank, len(inputs)), make([]SignedRank, len(inputs))
	// minimumP is the smallest p-value each test could reach against no
	// change, whatever the data's signs: Tarone's rule needs it.
	minimumP := make([]float64, len(inputs))
	counts := make([]countData, len(inputs))
	var gating []int
	for i, in := range inputs {
		r := &results[i]
		*r = Result{Input: in, Rounds: n, AtLook: p.IsLook(n), Level: level}
		if in.Gates {
			gating = append(gating, i)
		}
		if in.Scale == Count {
			c := pooledCounts(in)
			counts[i], r.Pairs = c, min(len(in.Base), len(in.Head))
			r.BaseMedian, r.HeadMedian = ratePer(c.base, c.baseExposure), ratePer(c.head, c.headExposure)
			d0, _ := in.indifference()
			upTests[i].PGreater, downTests[i].PLess = c.eTest(d0), c.swapped().eTest(d0)
			minimumP[i] = c.minimumP()
			continue
		}
		diffs[i] = r.differences()
		r.Pairs, r.Dropped = len(diffs[i]), len(in.Base)-len(diffs[i])
		if in.Scale == Binary {
			r.BaseMedian, r.HeadMedian = mean(in.Base), mean(in.Head)
			tests[i] = signTest(diffs[i])
			upTests[i], downTests[i] = tests[i], tests[i]
		} else {
			r.BaseMedian, r.HeadMedian = Median(in.Base), Median(in.Head)
			tests[i] = SignedRankTest(diffs[i])
			up, down := in.indifference()
			upTests[i], downTests[i] = shiftedTest(diffs[i], up, tests[i]), shiftedTest(diffs[i], down, tests[i])
		}
		minimumP[i] = 1
		if tests[i].N > 0 {
			minimumP[i] = math.Pow(0.5, float64(tests[i].N))
		}
	}

	// Per metric: the one-sided levels of the regression (low bound) and
	// improvement (high bound) tests, and whether they rejected.
	lowLevel, highLevel := make([]float64, len(inputs)), make([]float64, len(inputs))
	rejectedUp, rejectedDown := make([]bool, len(inputs)), make([]bool, len(inputs))
	family, tarone := taroneFamily(gating, minimumP, level)
	k := len(family)
	up, down := make([]float64, k), make([]float64, k)
	for j, i := range family {
		up[j], down[j] = upTests[i].PGreater, downTests[i].PLess
		results[i].InFamily = true
	}
	for side, pvalues := range [][]float64{up, down} {
		rejected, levels := holmSteps(pvalues, level)
		for j, adjusted := range Holm(pvalues) {
			i := family[j]
			if side == 0 {
				rejectedUp[i], lowLevel[i], results[i].PRegression = rejected[j], levels[j], min(1, adjusted/share)
			} else {
				rejectedDown[i], highLevel[i], results[i].PImprovement = rejected[j], levels[j], min(1, adjusted/share)
			}
		}
	}
	var walsh []float64 // reused: a thousand rounds make half a million
	for i := range results {
		r := &results[i]
		detectLevel := level
		switch {
		case r.InFamily:
			r.Family = k
			detectLevel = level / float64(k)
		case r.Gates:
			// Outside the family it cannot be rejected: its smallest
			// possible p-value is above level/tarone, so at that level its
			// interval holds 0 and its p-value stays above alpha. Had it
			// changed it would have joined the family, hence Detectable.
			r.Family = k
			detectLevel = level / float64(max(tarone, k+1))
			lowLevel[i], highLevel[i] = level/float64(tarone), level/float64(tarone)
			r.PRegression = min(1, upTests[i].PGreater*float64(tarone)/share)
			r.PImprovement = min(1, downTests[i].PLess*float64(tarone)/share)
		default:
			lowLevel[i], highLevel[i] = level, level
			rejectedUp[i], rejectedDown[i] = upTests[i].PGreater <= level, downTests[i].PLess <= level
			r.PRegression, r.PImprovement = min(1, upTests[i].PGreater/share), min(1, downTests[i].PLess/share)
		}
		est := Estimate{}
		switch {
		case r.Scale == Binary:
			est = binaryEstimate(diffs[i], lowLevel[i], highLevel[i])
		case r.Scale == Count:
			est = countEstimate(counts[i], lowLevel[i], highLevel[i])
		case r.Pairs > 0:
			walsh = walshAverages(diffs[i], walsh)
			est = estimate(walsh, r.Pairs, lowLevel[i], highLevel[i])
		}
		r.Delta, r.CI, r.CILevel = r.toScale(est.Center), [2]float64{r.toScale(est.Low), r.toScale(est.High)}, est.Level
		if r.Pairs == 0 {
			r.CILevel = 0
		}
		passLevel := missRate * share
		if missRate == 0 {
			passLevel = highLevel[i]
		}
		if r.Pairs > 0 && r.Scale != Binary {
			var bound, tail float64
			if r.Scale == Count {
				bound, tail = counts[i].upperBound(passLevel)
			} else {
				bound, tail = upperBound(walsh, r.Pairs, passLevel)
			}
			r.RuledOutAbove, r.RuledOutLevel = r.toScale(bound), 1-tail
		}
		r.Outcome = outcome(r, rejectedUp[i], rejectedDown[i], 1-passLevel)
		switch {
		case detect == nil || !detect(r.Input):
		case r.Scale == Binary:
			r.Detectable = binaryDetectable(r.Pairs, detectLevel)
		case r.Scale == Count:
			r.Detectable, r.DetectableRange, r.OC = countDetectable(r.Input, counts[i], detectLevel)
		default:
			r.Detectable, r.DetectableRange, r.OC = detectable(r.Input, diffs[i], walsh, est.Center, detectLevel)
		}
	}
	return results
}

// indifference is δ0 on the differences' scale, up (for the regression
// test) and down (for the improvement test): IndifferenceShare of the
// threshold, as a log-ratio for a Relative metric.
func (in Input) indifference() (up, down float64) {
	d0 := indifferenceShare * in.Threshold
	if in.Scale == Relative {
		return math.Log1p(d0), math.Log1p(-d0)
	}
	return d0, -d0
}

// shiftedTest is the signed-rank test of d against a centre of by: of the
// differences d-by. by 0 is plain, already computed.
func shiftedTest(d []float64, by float64, plain SignedRank) SignedRank {
	if by == 0 {
		return plain
	}
	shifted := make([]float64, len(d))
	for i, x := range d {
		shifted[i] = x - by
	}
	return SignedRankTest(shifted)
}

// taroneFamily is Holm's family among the gating metrics: those whose
// exact test can reach the level they would get in it. A metric with n
// non-zero differences has no p-value below 2^-n (minimumP; a count
// metric's is that of all its pooled events on head's side); Tarone's rule
// takes the smallest K such that at most K metrics have minimumP <=
// level/K, and the family is those metrics. It depends only on how many
// differences are non-zero (how many events there are), which says nothing
// about their signs (their split), so Holm over it (with m = its size)
// keeps its guarantee. The tests that decide are against δ0
// (shiftedTest), where a zero difference becomes a non-zero one of the
// sign that counts against the alternative: the smallest p-value they can
// reach is still 2^-n for the n differences that were not zero (every
// subset of signs that beats the shifted zeros' fixed ones has them all
// positive), so the family chosen by n still holds every metric that can
// be rejected.
func taroneFamily(gating []int, minimumP []float64, level float64) (family []int, k int) {
	for k = 1; ; k++ {
		family = family[:0]
		for _, i := range gating {
			if minimumP[i] <= level/float64(k) {
				family = append(family, i)
			}
		}
		if len(family) <= k {
			return family, k
		}
	}
}

// MayStop says whether the experiment may stop: the results are from one
// of the plan's looks, and either a gating metric regressed (the verdict
// can no longer become a pass) or none is inconclusive.
func MayStop(results []Result) bool {
	regressed, open := false, false
	for _, r := range results {
		if !r.AtLook {
			return false
		}
		if !r.Gates {
			continue
		}
		regressed = regressed || r.Outcome == Regression
		open = open || r.Outcome == Inconclusive
	}
	return regressed || !open
}

func outcome(r *Result, rejectedUp, rejectedDown bool, wantLevel float64) string {
	switch {
	case r.Pairs == 0:
		return Inconclusive
	case r.Scale == Binary:
		// No indifference zone: a significant excess of failures
		// matters at any size, and without one the sides failed alike
		// as far as the rounds can tell.
		switch {
		case rejectedUp:
			return Regression
		case rejectedDown:
			return Improvement
		}
		return Unchanged
	case r.Scale == Count && r.HeadMedian == 0 && !(rejectedDown && r.Delta < -r.Threshold):
		// Head without a single event is not worse than base however few
		// requests there were (as identical pairs are unchanged for the
		// other metrics): a count regresses only through head's events.
		// The interval and "could detect" say how much that rules out.
		// Base's own events (a connection's goroutines at one window's
		// edge) would otherwise hold a small gate inconclusive.
		return Unchanged
	case rejectedUp && r.Delta > r.Threshold:
		return Regression
	case rejectedDown && r.Delta < -r.Threshold:
		return Improvement
	case r.RuledOutAbove > r.Threshold:
		return Inconclusive
	case r.RuledOutLevel < wantLevel-1e-12 && r.CI != [2]float64{0, 0}:
		// Too few pairs for the bound to reach its level: a low bound
		// then proves nothing. (Identical pairs, such as no errors on
		// either side, are the exception.)
		return Inconclusive
	}
	return Unchanged
}

// differences are the per-pair log-ratios (Relative) or differences.
func (r *Result) differences() []float64 {
	d := make([]float64, 0, len(r.Base))
	for i := range r.Base {
		b, h := r.Base[i], r.Head[i]
		if r.Scale != Relative {
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

// SD is the sample standard deviation of values (NaN below two).
func SD(values []float64) float64 {
	if len(values) < 2 {
		return math.NaN()
	}
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(values)-1))
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
