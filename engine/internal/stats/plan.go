package stats

import (
	"fmt"
	"math"
	"strings"
)

// Plan is the sequential design: the experiment analyses its rounds at a
// few looks, from Min valid rounds to Max, and stops at the first look
// where every gating metric is decided (MayStop). Each look spends part of
// Alpha; the parts add up to Alpha, so by the union bound the chance that a
// gate reports a regression that is not there stays at most Alpha whatever
// look the experiment stops at (docs/statistics.md).
type Plan struct {
	// Alpha bounds the false-failure rate of the whole gate for changes
	// of at most δ0 (IndifferenceShare of each threshold): over every look
	// and every gating metric.
	Alpha float64
	// Min is the number of valid rounds at the first look, Max at the
	// last. Max <= Min is a fixed experiment with a single look at Min.
	Min, Max int
}

// maxLooks caps the number of looks: every look spends alpha, so more of
// them make each one stricter, while fewer make the experiment overshoot
// the round at which it was decided.
const maxLooks = 4

// firstShare is the part of Alpha the first look spends when there are
// more; the others share the rest equally. Most gates stop at the first
// look (nothing changed, or a clear change), so it gets the most.
const firstShare = 0.5

func (p Plan) first() int { return max(1, p.Min) }
func (p Plan) last() int  { return max(p.first(), p.Max) }

// Looks are the numbers of valid rounds at which the data are analysed:
// Min, up to maxLooks-2 evenly spaced ones, and Max.
func (p Plan) Looks() []int {
	lo, hi := p.first(), p.last()
	steps := min(maxLooks-1, hi-lo)
	looks := []int{lo}
	for i := 1; i <= steps; i++ {
		looks = append(looks, lo+(i*(hi-lo)+steps/2)/steps)
	}
	return looks
}

// share is the part of Alpha spent at the look with index k.
func (p Plan) share(k, looks int) float64 {
	switch {
	case looks == 1:
		return 1
	case k == 0:
		return firstShare
	}
	return (1 - firstShare) / float64(looks-1)
}

// look is the index of the look an analysis of n valid rounds is charged
// to: the first look at or after n, or the last one past Max. An analysis
// between looks (an interrupted experiment's last) thus spends the alpha of
// a look that will never happen, and the union bound still holds.
func (p Plan) look(n int) (index int, looks []int) {
	looks = p.Looks()
	for k, l := range looks {
		if n <= l {
			return k, looks
		}
	}
	return len(looks) - 1, looks
}

// LevelAt is the significance level, before Holm's correction across the
// gating metrics, of the analysis of n valid rounds: the part of Alpha its
// look spends. The levels of all looks add up to Alpha.
func (p Plan) LevelAt(n int) float64 {
	k, looks := p.look(n)
	return p.Alpha * p.share(k, len(looks))
}

// IsLook says whether the experiment may stop after n valid rounds: n is
// one of the looks, or at least Max.
func (p Plan) IsLook(n int) bool {
	k, looks := p.look(n)
	return n == looks[k] || n >= p.last()
}

// MinRounds is the smallest number of valid rounds at which a fixed
// experiment (a single look) can call a regression at level alpha with
// family gating metrics: the exact signed-rank test's smallest p-value,
// 2^-n when all n differences point the same way, must be at most
// alpha/family, so n = ⌈log2(family/alpha)⌉.
func MinRounds(alpha float64, family int) int {
	family = max(1, family)
	if !(alpha > 0) {
		return math.MaxInt
	}
	n := max(1, int(math.Ceil(math.Log2(float64(family)/alpha)-1e-9)))
	for math.Pow(0.5, float64(n)) > alpha/float64(family) {
		n++
	}
	return n
}

// reachable reports whether some look of p can call a regression with
// family gating metrics.
func (p Plan) reachable(family int) bool {
	family = max(1, family)
	looks := p.Looks()
	for k, n := range looks {
		if math.Pow(0.5, float64(n)) <= p.Alpha*p.share(k, len(looks))/float64(family) {
			return true
		}
	}
	return false
}

// Check returns an *InfeasibleError when no look of p can call a
// regression with these gating metrics: the gate could never fail. It
// checks the whole family, including metrics that may leave it at run time
// (errors with no difference at all), because it cannot know in advance.
func (p Plan) Check(family []string) error {
	if p.Alpha <= 0 || p.reachable(len(family)) {
		return nil
	}
	e := &InfeasibleError{Plan: p, Family: family, Rounds: MinRounds(p.Alpha, len(family))}
	for e.Max = p.last() + 1; !(Plan{Alpha: p.Alpha, Min: p.Min, Max: e.Max}).reachable(len(family)); e.Max++ {
	}
	// The smallest alpha that works: some look k with
	// 2^-n_k <= alpha·share_k/family.
	looks := p.Looks()
	e.Alpha = math.Inf(1)
	for k, n := range looks {
		e.Alpha = min(e.Alpha, math.Pow(0.5, float64(n))*float64(max(1, len(family)))/p.share(k, len(looks)))
	}
	return e
}

// InfeasibleError says that a plan can never call a regression, and what
// would: Rounds valid rounds in a fixed experiment, a maximum of Max with
// the same minimum, or an alpha of at least Alpha with the same rounds.
type InfeasibleError struct {
	Plan   Plan
	Family []string
	Rounds int
	Max    int
	Alpha  float64
}

func (e *InfeasibleError) Error() string {
	rounds := fmt.Sprintf("pairs %d", e.Plan.Min)
	if e.Plan.Max > e.Plan.Min {
		rounds = fmt.Sprintf("pairs %d to %d", e.Plan.Min, e.Plan.Max)
	}
	return fmt.Sprintf("%s can never reach significance at alpha %g over %d gating metrics (%s): "+
		"after n valid rounds the exact signed-rank test's smallest p-value is 2^-n, above the level each metric gets at every look; "+
		"use pairs of at least %d (or a maximum of at least %d), or alpha of at least %.2g",
		rounds, e.Plan.Alpha, len(e.Family), strings.Join(e.Family, ", "), e.Rounds, e.Max, e.Alpha)
}
