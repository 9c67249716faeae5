package stats

import "math"

// A Binary metric's value is 1 or 0 per side and round: whether the side
// failed in it. With base and head treated alike in every round (the
// order drawn per round, the same load, the same limits), a round in which
// exactly one side failed is, when nothing changed, as likely to be head's
// as base's, whatever makes failures more or less common on the machine.
// So the test is the exact sign test of those rounds, and rounds in which
// both or neither failed say nothing about the difference. (The
// signed-rank test of the ±1 differences is the same test, all ranks tied;
// computing it as a binomial tail keeps it exact for any number of rounds.)

// signTest is the exact sign test of the non-zero differences of d, in the
// form of a SignedRank (all ranks tie at (N+1)/2).
func signTest(d []float64) SignedRank {
	up, down := signs(d)
	n := up + down
	return SignedRank{
		N: n, WPlus: float64(up) * float64(n+1) / 2, Exact: true,
		PGreater: binomialAtLeast(n, up, 0.5), PLess: binomialAtLeast(n, down, 0.5),
	}
}

// binaryEstimate is the difference of the two sides' failure rates over
// the n rounds of d (head's rate minus base's), with an interval whose low
// bound holds at one-sided level lowAlpha and high bound at highAlpha.
// Given the k rounds in which exactly one side failed, head's share θ of
// them has the exact (Clopper–Pearson) interval, and the difference is
// (2θ−1)·k/n; the low bound is above 0 exactly when the sign test at
// lowAlpha rejects.
func binaryEstimate(d []float64, lowAlpha, highAlpha float64) Estimate {
	n := len(d)
	if n == 0 {
		return Estimate{}
	}
	up, down := signs(d)
	k := up + down
	e := Estimate{Center: float64(up-down) / float64(n), Level: 1 - lowAlpha - highAlpha}
	if k == 0 {
		return e
	}
	toDifference := func(share float64) float64 { return (2*share - 1) * float64(k) / float64(n) }
	e.Low, e.High = toDifference(shareLowerBound(k, up, lowAlpha)), toDifference(1-shareLowerBound(k, down, highAlpha))
	return e
}

// binaryDetectable is the smallest failure rate of head, over n rounds in
// which base never fails, that the sign test at one-sided level alpha
// catches with probability DetectablePower; nil when n rounds cannot reach
// alpha at all. The test needs c one-sided rounds with 2^-c <= alpha, so
// the rate is the one at which n rounds hold at least c failures with that
// probability.
func binaryDetectable(n int, alpha float64) *float64 {
	c := 0
	for ; c <= n && math.Pow(0.5, float64(c)) > alpha; c++ {
	}
	if c > n {
		return nil
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if binomialAtLeast(n, c, mid) >= DetectablePower {
			hi = mid
		} else {
			lo = mid
		}
	}
	return &hi
}

// signs counts the positive and negative values of d.
func signs(d []float64) (up, down int) {
	for _, x := range d {
		switch {
		case x > 0:
			up++
		case x < 0:
			down++
		}
	}
	return up, down
}

// shareLowerBound is the exact one-sided lower confidence bound at level
// alpha for the success probability of a binomial with x successes in n
// trials: the p at which P(X >= x) = alpha (0 when x is 0). P(X >= x)
// rises with p, so bisection finds it.
func shareLowerBound(n, x int, alpha float64) float64 {
	if x == 0 {
		return 0
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if binomialAtLeast(n, x, mid) < alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// binomialAtLeast is P(X >= x) for X ~ Binomial(n, p).
func binomialAtLeast(n, x int, p float64) float64 {
	switch {
	case x <= 0:
		return 1
	case x > n:
		return 0
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	lnN, _ := math.Lgamma(float64(n + 1))
	sum := 0.0
	for i := x; i <= n; i++ {
		lnI, _ := math.Lgamma(float64(i + 1))
		lnR, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lnN - lnI - lnR + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return min(1, sum)
}

// mean is the mean of values (0 for none).
func mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}
