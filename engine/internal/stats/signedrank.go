// Package stats decides whether head differs from base on paired rounds.
// Each metric's rounds give differences (log-ratios head/base, or head-base
// for absolute metrics such as the error rate); Decide tests them with the
// one-sided exact Wilcoxon signed-rank test, estimates the change with
// Hodges–Lehmann and its exact interval (at the level of the adjusted
// test), corrects across the gating metrics with Holm, and says what change
// the run could detect with 90% power.
//
// A Plan makes the experiment sequential: it analyses its rounds at
// Plan.Looks, each look spending part of Plan.Alpha (Plan.LevelAt), and it
// stops at the first look where MayStop holds. Plan.Check refuses a
// plan under which no gating metric could ever be called a regression.
// docs/statistics.md explains the method and the simulations that check
// it (go test ./internal/stats -run TestSimulation -simulate -v).
package stats

import (
	"math"
	"sort"
	"sync"

	moremath "github.com/aclements/go-moremath/stats"
)

// exactLimit is the largest number of non-zero differences for which the
// null distribution is computed exactly; above it the normal approximation
// (with tie correction) is as good and far cheaper.
const exactLimit = 100

// SignedRank is the Wilcoxon signed-rank test of the differences d.
type SignedRank struct {
	// N is the number of non-zero differences (zeros are dropped, as in
	// Wilcoxon's original test and R's wilcox.test).
	N int
	// WPlus is the sum of the ranks of the positive differences (midranks
	// for ties).
	WPlus float64
	// PGreater is P(W+ >= observed) under H0: the one-sided p-value for
	// "head is larger". PLess is P(W+ <= observed).
	PGreater, PLess float64
	Exact           bool
}

// SignedRankTest runs the test. With ties among |d| the exact distribution
// is the conditional one over the observed midranks.
func SignedRankTest(d []float64) SignedRank {
	var nonzero []float64
	for _, x := range d {
		if x != 0 {
			nonzero = append(nonzero, x)
		}
	}
	n := len(nonzero)
	res := SignedRank{N: n, PGreater: 1, PLess: 1}
	if n == 0 {
		return res
	}
	ranks := midranks(nonzero)
	for i, x := range nonzero {
		if x > 0 {
			res.WPlus += ranks[i]
		}
	}
	if n <= exactLimit {
		res.Exact = true
		if untied(ranks) {
			// The distribution of untied ranks 1..n depends on n alone.
			cum := lowerTail(n)
			w := int(math.Round(res.WPlus))
			res.PLess = cum[w]
			res.PGreater = cum[len(cum)-1-w] // P(W+ >= w) = P(W+ <= M-w)
			return res
		}
		dist := exactDistribution(ranks)
		// Doubled ranks are integers, so W+ indexes the distribution.
		w := int(math.Round(2 * res.WPlus))
		for v, p := range dist {
			if v >= w {
				res.PGreater += p
			}
			if v <= w {
				res.PLess += p
			}
		}
		res.PGreater, res.PLess = math.Min(1, res.PGreater-1), math.Min(1, res.PLess-1)
		return res
	}
	// Normal approximation with the tie-corrected variance and a
	// continuity correction.
	mean := float64(n*(n+1)) / 4
	variance := 0.0
	for _, r := range ranks {
		variance += r * r
	}
	variance /= 4
	sd := math.Sqrt(variance)
	norm := moremath.StdNormal
	res.PGreater = 1 - norm.CDF((res.WPlus-0.5-mean)/sd)
	res.PLess = norm.CDF((res.WPlus + 0.5 - mean) / sd)
	return res
}

// exactDistribution is the null distribution of 2·W+: each rank enters the
// sum with probability 1/2, independently.
func exactDistribution(ranks []float64) []float64 {
	total := 0
	doubled := make([]int, len(ranks))
	for i, r := range ranks {
		doubled[i] = int(math.Round(2 * r))
		total += doubled[i]
	}
	dist := make([]float64, total+1)
	dist[0] = 1
	reach := 0
	for _, r := range doubled {
		reach += r
		for w := reach; w >= 0; w-- {
			with := 0.0
			if w >= r {
				with = dist[w-r]
			}
			dist[w] = 0.5 * (dist[w] + with)
		}
	}
	return dist
}

// midranks ranks |x| from 1, giving tied values the mean of their ranks.
func midranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(x[idx[a]]) < math.Abs(x[idx[b]]) })
	ranks := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(x[idx[j+1]]) == math.Abs(x[idx[i]]) {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = mid
		}
		i = j + 1
	}
	return ranks
}

// untied says whether midranks are 1..n, each once.
func untied(ranks []float64) bool {
	seen := make([]bool, len(ranks)+1)
	for _, r := range ranks {
		i := int(r)
		if float64(i) != r || i < 1 || i > len(ranks) || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

// tails caches lowerTail: Decide runs after every round, and the
// simulations run it millions of times.
var tails struct {
	sync.Mutex
	byN map[int][]float64
}

// lowerTail is P(W+ <= k) for n untied ranks 1..n, which is what the
// Hodges–Lehmann interval's order statistics are defined by. The slice is
// shared: callers must not modify it.
func lowerTail(n int) []float64 {
	tails.Lock()
	defer tails.Unlock()
	if cum, ok := tails.byN[n]; ok {
		return cum
	}
	if tails.byN == nil {
		tails.byN = map[int][]float64{}
	}
	cum := computeLowerTail(n)
	tails.byN[n] = cum
	return cum
}

func computeLowerTail(n int) []float64 {
	ranks := make([]float64, n)
	for i := range ranks {
		ranks[i] = float64(i + 1)
	}
	dist := exactDistribution(ranks)
	// Keep the integer values of W+ (even entries of the doubled scale).
	cum := make([]float64, n*(n+1)/2+1)
	acc := 0.0
	for w := range cum {
		acc += dist[2*w]
		cum[w] = acc
	}
	return cum
}
