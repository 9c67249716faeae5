package stats

import (
	"math"

	moremath "github.com/aclements/go-moremath/stats"
)

// Estimate is the Hodges–Lehmann estimate of the centre of the differences
// and its confidence interval from the signed-rank distribution.
type Estimate struct {
	Center float64
	Low    float64
	High   float64
	// Level is the interval's actual coverage. It is below the requested
	// one when there are too few pairs to reach it (the widest interval,
	// from the smallest to the largest Walsh average, is reported then).
	Level float64
}

// HodgesLehmann estimates the centre of d (the median of the Walsh averages
// (d_i+d_j)/2, i<=j) with a two-sided interval whose each bound holds at
// one-sided level alpha, i.e. coverage 1-2·alpha: the interval that matches
// a one-sided test at alpha.
func HodgesLehmann(d []float64, alpha float64) Estimate {
	return hodgesLehmann(d, alpha, alpha)
}

// hodgesLehmann is HodgesLehmann with the lower bound at one-sided level
// lowAlpha and the upper at highAlpha, the levels at which the regression
// and the improvement tests were taken (coverage 1-lowAlpha-highAlpha).
func hodgesLehmann(d []float64, lowAlpha, highAlpha float64) Estimate {
	n := len(d)
	if n == 0 {
		return Estimate{Level: 0}
	}
	return estimate(walshAverages(d, nil), n, lowAlpha, highAlpha)
}

// estimate is hodgesLehmann from the Walsh averages of n differences,
// which it reorders.
func estimate(walsh []float64, n int, lowAlpha, highAlpha float64) Estimate {
	e := Estimate{Center: medianOf(walsh)}
	kLow, tailLow := criticalCount(n, lowAlpha)
	high, tailHigh := upperBound(walsh, n, highAlpha)
	e.Low, e.High = selectNth(walsh, kLow), high
	e.Level = 1 - tailLow - tailHigh
	return e
}

// upperBound is the one-sided upper bound of the centre at level alpha
// from the Walsh averages of n differences (which it reorders), and the
// tail it holds at: above alpha when n pairs cannot reach alpha.
func upperBound(walsh []float64, n int, alpha float64) (bound, tail float64) {
	k, tail := criticalCount(n, alpha)
	return selectNth(walsh, len(walsh)-1-k), tail
}

// walshAverages appends the n(n+1)/2 averages (d_i+d_j)/2, i<=j, to buf.
func walshAverages(d, buf []float64) []float64 {
	buf = buf[:0]
	for i, x := range d {
		for _, y := range d[i:] {
			buf = append(buf, (x+y)/2)
		}
	}
	return buf
}

// medianOf is the median of a, which it reorders.
func medianOf(a []float64) float64 {
	m := len(a)
	if m%2 == 1 {
		return selectNth(a, m/2)
	}
	hi := selectNth(a, m/2)
	// After selection everything before m/2 is <= a[m/2]: the lower
	// middle value is their maximum.
	lo := a[0]
	for _, x := range a[1 : m/2] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

// selectNth is the k-th smallest (0-based) value of a, which it reorders
// so that a[k] holds it, smaller values before it and larger after
// (Hoare's selection, expected linear time: the Walsh averages of a
// thousand rounds are half a million values, too many to sort per look).
func selectNth(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear.
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// criticalCount is the largest k with P(W+ <= k) <= alpha for n pairs, and
// that tail probability. The sorted Walsh averages A (0-based) then bound
// the centre with A[k] below and A[M-1-k] above, each bound holding at
// level alpha (θ < A[k] exactly when W+ <= k). When even k=0 exceeds alpha
// (too few pairs), it returns 0 and the tail of that widest interval, as
// R's wilcox.test does.
func criticalCount(n int, alpha float64) (int, float64) {
	if !(alpha > 0) {
		return 0, math.Pow(0.5, float64(n))
	}
	if n > exactLimit {
		z := moremath.StdNormal.InvCDF(alpha)
		mean := float64(n*(n+1)) / 4
		sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
		return max(0, int(math.Floor(mean+z*sd))), alpha
	}
	cum := lowerTail(n)
	k := 0
	for k+1 < len(cum) && cum[k+1] <= alpha {
		k++
	}
	return k, cum[k]
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
