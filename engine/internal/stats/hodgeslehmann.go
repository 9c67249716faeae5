package stats

import (
	"math"
	"sort"

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
	n := len(d)
	if n == 0 {
		return Estimate{Level: 0}
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	sort.Float64s(walsh)
	m := len(walsh)
	e := Estimate{Center: median(walsh)}
	k, tail := criticalCount(n, alpha)
	e.Low, e.High = walsh[k], walsh[m-1-k]
	e.Level = 1 - 2*tail
	return e
}

// criticalCount is the largest k with P(W+ <= k) <= alpha for n pairs, and
// that tail probability. The sorted Walsh averages A (0-based) then bound
// the centre with A[k] below and A[M-1-k] above, each bound holding at
// level alpha (θ < A[k] exactly when W+ <= k). When even k=0 exceeds alpha
// (too few pairs), it returns 0 and the tail of that widest interval, as
// R's wilcox.test does.
func criticalCount(n int, alpha float64) (int, float64) {
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
