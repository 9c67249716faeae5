package trend

import (
	"fmt"
	"math"
	"sort"

	moremath "github.com/aclements/go-moremath/stats"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// Paired nights: a recording made with perfgate run --pair-with measured
// its commit and the previous night's at once, on the same CPUs, so the
// machine's drift between nights (6–16% for CPU on shared runners) is not
// in its estimate (0.2–0.3% here, docs/trends-detection.md). A night
// paired with the commit of the point before it in a series is a link of
// that series; each link can show a step by itself.

// linkOf is entry e's paired estimate of m when e was paired with
// previous (the commit of the series' point before it), and the entry's
// function changes; nil otherwise.
func linkOf(e history.Entry, m *metric.Metric, previous string) (*history.PairedEstimate, []history.Function) {
	if e.Paired == nil || e.Paired.With != previous {
		return nil, nil
	}
	est, ok := e.Paired.Metrics[m.Name]
	if !ok {
		return nil, nil
	}
	return &est, e.Paired.Functions
}

// hasLinks says whether any point of the series is a paired night whose
// interval reached the level a step needs.
func hasLinks(s *Series, alpha float64) bool {
	for _, p := range s.Points {
		if decisive(p.Paired, alpha) {
			return true
		}
	}
	return false
}

// decisive says whether a night's interval is at least as strict as the
// search (coverage 1 − alpha): a duet of too few rounds cannot reach it
// (the signed-rank interval of n rounds misses zero by chance 2/2^n at
// least; 11 rounds for p ≤ 0.001), and its widest interval would leave
// zero out one night in 32 at 6 rounds.
func decisive(est *history.PairedEstimate, alpha float64) bool {
	return est != nil && est.Level >= 1-alpha-1e-9
}

// shortNights warns when a series' paired nights have too few rounds for
// their intervals to show a step.
func shortNights(s *Series, alpha float64) string {
	for _, p := range s.Points {
		if p.Paired != nil && !decisive(p.Paired, alpha) {
			return fmt.Sprintf("%s on %s: paired nights of %d rounds reach a %.1f%% interval, not the %.1f%% a step needs: their steps are not read (set pairs.min to %d or more)",
				s.Metric, s.MachineDescription, p.Paired.Pairs, 100*p.Paired.Level, 100*(1-alpha), verdict.RoundsFor(alpha))
		}
	}
	return ""
}

// pairedSteps are the links whose estimate is a step on its own: its
// interval (99.9%, verdict.PairedLevel, at least 1 − the search's alpha)
// leaves no change out and it moved the metric by at least the smallest
// step. Under no change, a night's
// interval misses zero one time in a thousand (the signed-rank interval
// is exact), so this is as strict as the medians' change-point search.
func pairedSteps(s *Series, m *metric.Metric, set Settings) []Step {
	var steps []Step
	for j := 1; j < len(s.Points); j++ {
		est := s.Points[j].Paired
		if !decisive(est, set.Alpha) || !(est.CI[0] > 0 || est.CI[1] < 0) || math.Abs(est.Estimate) < set.MinMagnitude {
			continue
		}
		steps = append(steps, Step{
			Index: j, Before: s.Points[j-1].Commit, After: s.Points[j].Commit,
			BeforeLevel: s.Points[j-1].Median, AfterLevel: s.Points[j].Median,
			Magnitude: est.Estimate, P: 1 - est.Level, Direction: direction(m, est.Estimate), Paired: est,
			functions: s.Points[j].functions,
		})
	}
	return steps
}

// mergeSteps adds the paired steps to those of the medians: a step both
// found (the same night) is one step, confirmed by its night's duet.
func mergeSteps(medians, paired []Step) []Step {
	byIndex := map[int]int{}
	for i, st := range medians {
		byIndex[st.Index] = i
	}
	out := append([]Step(nil), medians...)
	for _, st := range paired {
		if i, ok := byIndex[st.Index]; ok {
			out[i].Paired, out[i].functions = st.Paired, st.functions
			continue
		}
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// chainOf compounds a series' links from the first on: the change over
// the paired nights and an interval from theirs. A night's error is its
// interval's half width over Student's t quantile of its level with one
// degree of freedom fewer than its rounds: the signed-rank interval of a
// few rounds is as wide as a t interval, not a normal one (with the
// normal quantile the chain's stated error was 1.3–1.7 times the real
// one, docs/trends-detection.md); the chain, a sum of many nights, takes
// the normal quantile. Nights that are not links (a gap in the chain) are skipped: the
// chain then leaves out what changed between them.
func chainOf(points []Point) *Chain {
	links := chainLinks(points)
	if len(links) == 0 {
		return nil
	}
	c := &Chain{From: points[links[0]-1].Commit, Nights: len(links)}
	sum, variance, level := 0.0, 0.0, 0.0
	for _, j := range links {
		est := points[j].Paired
		sum += math.Log1p(est.Estimate)
		half := (math.Log1p(est.CI[1]) - math.Log1p(est.CI[0])) / 2
		sd := half / twoSidedT(est.Level, est.Pairs-1)
		variance += sd * sd
		level = est.Level
	}
	z := twoSidedZ(level)
	sd := math.Sqrt(variance)
	c.Change, c.CI, c.Level = math.Expm1(sum), [2]float64{math.Expm1(sum - z*sd), math.Expm1(sum + z*sd)}, level
	return c
}

// chainLinks are the indexes of the points whose paired estimate
// compounds: links whose estimate and interval stay above −100% (a ratio
// with a logarithm).
func chainLinks(points []Point) []int {
	var links []int
	for j, p := range points {
		if est := p.Paired; est != nil && est.Estimate > -1 && est.CI[0] > -1 {
			links = append(links, j)
		}
	}
	return links
}

// twoSidedZ is the normal quantile whose two-sided interval has coverage
// level (3.29 at 99.9%).
func twoSidedZ(level float64) float64 { return math.Sqrt2 * math.Erfinv(level) }

// twoSidedT is Student's t quantile (df degrees of freedom) whose two-sided
// interval has coverage level; the normal one for df below 1.
func twoSidedT(level float64, df int) float64 {
	if df < 1 {
		return twoSidedZ(level)
	}
	return moremath.InvCDF(moremath.TDist{V: float64(df)})(0.5 + level/2)
}
