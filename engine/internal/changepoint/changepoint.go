// Package changepoint finds the steps in a series of nightly medians:
// e-divisive means (Matteson & James 2014), the method of Apache Otava
// (Hunter) and MongoDB's signal processing, with a permutation test of
// each split, applied by binary segmentation.
package changepoint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Options configure Detect. Zero values take the defaults.
type Options struct {
	Alpha        float64 // significance level of a split, default 0.001
	Permutations int     // default 1999: resolution enough for 0.001
	MinSegment   int     // fewest points on either side of a change, default 4
	// MinMagnitude is the smallest change reported: a fraction of the
	// level before when Relative, else in the series' unit.
	MinMagnitude float64
	// Relative searches log(x) (every x must be positive) and reports
	// magnitudes as fractions; otherwise x, in its unit.
	Relative bool
	Seed     uint64
}

// Change is one step of a series.
type Change struct {
	Index     int     // first index of the new level
	Before    float64 // median of the segment before (back to the previous change)
	After     float64 // median of the segment after (up to the next change)
	Magnitude float64 // (After−Before)/Before when Relative, else After−Before
	P         float64 // the permutation p-value of the split
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.001
	}
	if o.Permutations == 0 {
		o.Permutations = 1999
	}
	if o.MinSegment == 0 {
		o.MinSegment = 4
	}
	return o
}

// Detect returns the change points of xs, sorted by Index.
func Detect(xs []float64, o Options) ([]Change, error) {
	o = o.withDefaults()
	if o.MinSegment < 1 || o.Alpha <= 0 || o.Alpha >= 1 || o.Permutations < 1 {
		return nil, fmt.Errorf("changepoint: options %+v out of range", o)
	}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("value %v at index %d is not a number", x, i)
		}
		ys[i] = x
		if o.Relative {
			if x <= 0 {
				return nil, fmt.Errorf("value %v at index %d is not positive, so it has no logarithm; search this metric on an absolute scale", x, i)
			}
			ys[i] = math.Log(x)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	splits := segment(ys, 0, len(ys), o, rng, nil)
	sort.Slice(splits, func(i, j int) bool { return splits[i].index < splits[j].index })
	return describe(xs, splits, o), nil
}

// split is a significant split found by segmentation.
type split struct {
	index int
	p     float64
}

// segment finds the most significant split of ys[lo:hi] and, when it is
// significant, recurses on both sides.
func segment(ys []float64, lo, hi int, o Options, rng *rand.Rand, found []split) []split {
	if hi-lo < 2*o.MinSegment {
		return found
	}
	window := ys[lo:hi]
	// First the classic split (the second side runs to the window's end),
	// then, when that is not significant, the split against every end of
	// the second side: the one that finds a step a later step reverses.
	// Each is tested at Alpha; searching every end alone would cost power
	// on a single step (docs/trends-detection.md).
	at, p := -1, 1.0
	for _, everyEnd := range []bool{false, true} {
		var stat float64
		if at, stat = best(window, o.MinSegment, everyEnd); at < 0 {
			return found
		}
		if p = permutationP(window, stat, everyEnd, o, rng); p <= o.Alpha {
			break
		}
	}
	if p > o.Alpha {
		return found
	}
	found = append(found, split{index: lo + at, p: p})
	found = segment(ys, lo, lo+at, o, rng, found)
	return segment(ys, lo+at, hi, o, rng, found)
}

// best is the split of xs maximising the e-divisive statistic of
// Matteson & James: the energy distance between xs[:τ] and xs[τ:κ],
// scaled by their sizes, over every τ, with at least minSegment points on
// each side; κ is len(xs), or every end of the second side when everyEnd.
// Searching κ as well is what finds a step that a later step reverses: a
// bump's best split against the whole rest of the series mixes both
// levels on one side, against the bump alone it does not. It returns τ
// and the statistic.
func best(xs []float64, minSegment int, everyEnd bool) (int, float64) {
	var w workspace
	return w.best(xs, minSegment, everyEnd)
}

// workspace holds best's table of distance sums, reused across the
// permutations of one test.
type workspace struct {
	sums []float64 // (n+1)², row-major: sums[i*(n+1)+j] = Σ_{a<i, b<j} |x_a − x_b|
}

func (w *workspace) best(xs []float64, minSegment int, everyEnd bool) (int, float64) {
	n := len(xs)
	stride := n + 1
	if cap(w.sums) < stride*stride {
		w.sums = make([]float64, stride*stride)
	}
	p := w.sums[:stride*stride]
	for j := range stride {
		p[j] = 0
	}
	for i := 1; i <= n; i++ {
		row := 0.0
		p[i*stride] = 0
		for j := 1; j <= n; j++ {
			row += math.Abs(xs[i-1] - xs[j-1])
			p[i*stride+j] = p[(i-1)*stride+j] + row
		}
	}
	// block is Σ |x_a − x_b| over a in [a0, a1), b in [b0, b1).
	block := func(a0, a1, b0, b1 int) float64 {
		return p[a1*stride+b1] - p[a0*stride+b1] - p[a1*stride+b0] + p[a0*stride+b0]
	}
	at, stat := -1, math.Inf(-1)
	// O(n²) per call; a series is a few hundred nightlies at most.
	for tau := minSegment; tau+minSegment <= n; tau++ {
		left := float64(tau)
		withinLeft := meanOfPairs(block(0, tau, 0, tau)/2, left)
		firstEnd := n
		if everyEnd {
			firstEnd = tau + minSegment
		}
		for kappa := firstEnd; kappa <= n; kappa++ {
			right := float64(kappa - tau)
			e := 2*block(0, tau, tau, kappa)/(left*right) - withinLeft - meanOfPairs(block(tau, kappa, tau, kappa)/2, right)
			if q := left * right / (left + right) * e; q > stat {
				at, stat = tau, q
			}
		}
	}
	return at, stat
}

// meanOfPairs is a sum over the pairs of n points divided by their number
// (0 for a single point).
func meanOfPairs(sum, n float64) float64 {
	if n < 2 {
		return 0
	}
	return sum / (n * (n - 1) / 2)
}

// permutationP is the share of random orders of xs whose best split is at
// least stat, counting the observed order ((hits+1)/(draws+1)). It stops
// early once the p-value can no longer be at most alpha.
func permutationP(xs []float64, stat float64, everyEnd bool, o Options, rng *rand.Rand) float64 {
	shuffled := append([]float64(nil), xs...)
	var w workspace
	hits := 0
	limit := int(o.Alpha*float64(o.Permutations+1)) - 1 // most hits a significant split may have
	for i := 0; i < o.Permutations; i++ {
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if _, s := w.best(shuffled, o.MinSegment, everyEnd); s >= stat {
			hits++
			if hits > limit {
				return float64(hits+1) / float64(i+2)
			}
		}
	}
	return float64(hits+1) / float64(o.Permutations+1)
}

// describe turns splits into changes with the medians of the segments
// between them, dropping those below MinMagnitude (their segments merge
// with the neighbours').
func describe(xs []float64, splits []split, o Options) []Change {
	for {
		changes := make([]Change, len(splits))
		drop := -1
		for i, s := range splits {
			lo, hi := 0, len(xs)
			if i > 0 {
				lo = splits[i-1].index
			}
			if i+1 < len(splits) {
				hi = splits[i+1].index
			}
			before, after := stats.Median(xs[lo:s.index]), stats.Median(xs[s.index:hi])
			mag := after - before
			if o.Relative {
				mag = (after - before) / before
			}
			changes[i] = Change{Index: s.index, Before: before, After: after, Magnitude: mag, P: s.p}
			if math.Abs(mag) < o.MinMagnitude && (drop < 0 || math.Abs(mag) < math.Abs(changes[drop].Magnitude)) {
				drop = i
			}
		}
		if drop < 0 {
			return changes
		}
		splits = append(splits[:drop], splits[drop+1:]...)
	}
}
