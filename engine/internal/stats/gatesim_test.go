package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// The simulated gate of docs/statistics.md: noise models, the gating
// metrics, the sequential experiment, and the checks of could-detect.

// noiseModel draws one standardised per-round error (SD 1).
type noiseModel struct {
	name string
	draw func(*rand.Rand) float64
}

var (
	normalNoise = noiseModel{"normal", func(r *rand.Rand) float64 { return r.NormFloat64() }}
	// t3Noise is Student's t with 3 degrees of freedom scaled to SD 1:
	// heavy tails, finite variance.
	t3Noise = noiseModel{"t(3)", func(r *rand.Rand) float64 {
		chi := 0.0
		for range 3 {
			z := r.NormFloat64()
			chi += z * z
		}
		return r.NormFloat64() / math.Sqrt(chi/3) / math.Sqrt(3)
	}}
	// spikyNoise is normal, but one round in twenty is hit by something
	// five times as large (a neighbour's burst landing on one side).
	spikyNoise = noiseModel{"5% ×5 spikes", func(r *rand.Rand) float64 {
		z := r.NormFloat64()
		if r.Float64() < 0.05 {
			z *= 5
		}
		return z / math.Sqrt(0.95+0.05*25)
	}}
)

// metricModel is how one metric's per-round difference is drawn: the
// log-ratio for Relative metrics, head-base for Absolute ones.
type metricModel struct {
	name      string
	scale     Scale
	threshold float64
	gates     bool
	sd        float64 // of the per-round difference
	noise     noiseModel
	shift     float64 // the true change, on the difference's scale
	// correlated, when >= 0, is the index of an earlier metric whose noise
	// this one shares with correlation rho (bytes follow allocations).
	correlated int
	rho        float64
	// poisson, for a Count metric, is the mean of each side's Poisson
	// count per round (0: none), and exposure what the count is of; shift
	// is then the change of head's rate, drawn as Poisson events too.
	poisson, exposure float64
}

// sides are one metric's values in one round.
type sides struct{ base, head float64 }

type gateModel []metricModel

// defaultGate is the simulated gate: CPU with the given threshold and
// per-round SD, and the other gating metrics at the configuration's
// default thresholds with the noise seen in A/A duets (docs/statistics.md):
// allocations and bytes 0.1% per round, correlated; no errors at all (of
// 1,500 requests a round); goroutines retained per 1,000 requests almost
// always 0 (a goroutine left alive in one round of 1,500 requests in
// twenty, on either side); live heap
// retained per 1,000 requests with an SD of 10 KB against a 64 KiB
// threshold.
func defaultGate(cpuThreshold, cpuSD float64, noise noiseModel) gateModel {
	return gateModel{
		{name: "cpu", threshold: cpuThreshold, gates: true, sd: cpuSD, noise: noise, correlated: -1},
		{name: "allocs", threshold: 0.02, gates: true, sd: 0.001, noise: noise, correlated: -1},
		{name: "bytes", threshold: 0.03, gates: true, sd: 0.001, noise: noise, correlated: 1, rho: 0.9},
		{name: "errors", scale: Count, threshold: 0.001, gates: true, exposure: 1500, correlated: -1},
		{name: "goroutines", scale: Count, threshold: 1, gates: true, poisson: 0.05, exposure: 1.5, correlated: -1},
		{name: "heap", scale: Absolute, threshold: 64 << 10, gates: true, sd: 10000, noise: noise, correlated: -1},
	}
}

// withThresholds returns a copy with every gating threshold set to t.
func (g gateModel) withThresholds(t float64) gateModel {
	out := slices.Clone(g)
	for i := range out {
		out[i].threshold = t
	}
	return out
}

func (g gateModel) withShift(name string, shift float64) gateModel {
	out := slices.Clone(g)
	for i := range out {
		if out[i].name == name {
			out[i].shift = shift
		}
	}
	return out
}

// round draws one round's values: for Relative and Absolute metrics base
// is fixed and head carries the difference (a log-ratio for Relative ones).
func (g gateModel) round(rng *rand.Rand) []sides {
	z := make([]float64, len(g))
	v := make([]sides, len(g))
	for i, m := range g {
		switch {
		case m.scale == Count:
			// Independent Poisson counts; head's change is events too.
			v[i] = sides{base: float64(poisson(rng, m.poisson)), head: float64(poisson(rng, m.poisson+m.shift*m.exposure))}
			continue
		case m.sd == 0:
			v[i] = sides{head: m.shift}
			continue
		}
		z[i] = m.noise.draw(rng)
		if m.correlated >= 0 {
			z[i] = m.rho*z[m.correlated] + math.Sqrt(1-m.rho*m.rho)*z[i]
		}
		v[i] = sides{head: m.shift + m.sd*z[i]}
	}
	return v
}

func poisson(rng *rand.Rand, mean float64) int {
	limit, k, p := math.Exp(-mean), 0, rng.Float64()
	for p > limit {
		k++
		p *= rng.Float64()
	}
	return k
}

// inputs turns rounds into Decide's inputs.
func (g gateModel) inputs(rounds [][]sides) []Input {
	in := make([]Input, len(g))
	for i, m := range g {
		in[i] = Input{Name: m.name, Scale: m.scale, Threshold: m.threshold, Gates: m.gates}
		for _, r := range rounds {
			switch m.scale {
			case Relative:
				in[i].Base, in[i].Head = append(in[i].Base, 1), append(in[i].Head, math.Exp(r[i].head))
			case Count:
				in[i].Base, in[i].Head = append(in[i].Base, r[i].base), append(in[i].Head, r[i].head)
				in[i].BaseExposure, in[i].HeadExposure = append(in[i].BaseExposure, m.exposure), append(in[i].HeadExposure, m.exposure)
			default:
				in[i].Base, in[i].Head = append(in[i].Base, 0), append(in[i].Head, r[i].head)
			}
		}
	}
	return in
}

// gateRun is one simulated gate.
type gateRun struct {
	rounds   int
	verdict  string // regression, inconclusive, improvement or pass
	failedBy []string
	results  []Result
}

// runGate runs the sequential experiment: rounds are added up to each look,
// and it stops at the first look where MayStop holds, or at the last.
func runGate(g gateModel, p Plan, rng *rand.Rand) gateRun {
	var rounds [][]sides
	looks := p.Looks()
	var res []Result
	for j, n := range looks {
		for len(rounds) < n {
			rounds = append(rounds, g.round(rng))
		}
		res = outcomes(g.inputs(rounds), p, n, nil)
		if MayStop(res) || j == len(looks)-1 {
			break
		}
	}
	run := gateRun{rounds: len(rounds), verdict: "pass", results: res}
	inconclusive, improved := false, false
	for _, r := range res {
		if !r.Gates {
			continue
		}
		switch r.Outcome {
		case Regression:
			run.failedBy = append(run.failedBy, r.Name)
		case Inconclusive:
			inconclusive = true
		case Improvement:
			improved = true
		}
	}
	switch {
	case len(run.failedBy) > 0:
		run.verdict = Regression
	case inconclusive:
		run.verdict = Inconclusive
	case improved:
		run.verdict = Improvement
	}
	return run
}

// summary is what many gates of one scenario came to.
type summary struct {
	gates                      int
	failed, failedCPU, inconcl int
	// passedCPU counts the gates that ended with CPU unchanged.
	passedCPU                      int
	meanRounds                     float64
	p95Rounds, maxRounds, atMinPct float64
}

// replicate runs f for r = 0..n-1 in parallel, each with its own
// generator seeded from (seed, r): the results do not depend on the
// number of CPUs.
func replicate[T any](n int, seed uint64, f func(r int, rng *rand.Rand) T) []T {
	out := make([]T, n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := w; r < n; r += workers {
				out[r] = f(r, rand.New(rand.NewPCG(seed, uint64(r))))
			}
		}()
	}
	wg.Wait()
	return out
}

func simulateGates(g gateModel, p Plan, n int, seed uint64) summary {
	runs := replicate(n, seed, func(_ int, rng *rand.Rand) gateRun { return runGate(g, p, rng) })
	s := summary{gates: n}
	rounds := make([]int, n)
	for i, r := range runs {
		rounds[i] = r.rounds
		s.meanRounds += float64(r.rounds) / float64(n)
		if r.rounds == p.first() {
			s.atMinPct += 100 / float64(n)
		}
		for _, m := range r.results {
			if m.Name == "cpu" && m.Outcome == Unchanged {
				s.passedCPU++
			}
		}
		switch r.verdict {
		case Regression:
			s.failed++
			if slices.Contains(r.failedBy, "cpu") {
				s.failedCPU++
			}
		case Inconclusive:
			s.inconcl++
		}
	}
	slices.Sort(rounds)
	s.p95Rounds = float64(rounds[int(math.Ceil(0.95*float64(n)))-1])
	s.maxRounds = float64(rounds[n-1])
	return s
}

// rate is k/n with a 95% Wilson interval, as text.
func rate(k, n int) string {
	p := float64(k) / float64(n)
	z := 1.96
	centre := (p + z*z/(2*float64(n))) / (1 + z*z/float64(n))
	half := z * math.Sqrt(p*(1-p)/float64(n)+z*z/(4*float64(n*n))) / (1 + z*z/float64(n))
	return fmt.Sprintf("%.4f [%.4f, %.4f]", p, max(0, centre-half), centre+half)
}

// couldDetect checks Detectable against the realised power. Each replicate
// measures an A/A experiment of the plan's first look, takes CPU's
// Detectable from it, then runs a fresh experiment with that true change
// and records whether the same look calls CPU a regression, and whether
// the whole sequential gate fails on CPU.
type detectCheck struct {
	detectable          []float64
	caughtAtLook, gates int
	caughtSequential    int
}

func isCPU(in Input) bool { return in.Name == "cpu" }

func checkCouldDetect(g gateModel, p Plan, n int, seed uint64) detectCheck {
	type one struct {
		detectable       float64
		atLook, sequence bool
		ok               bool
	}
	first := p.first()
	runs := replicate(n, seed, func(_ int, rng *rand.Rand) one {
		var rounds [][]sides
		for range first {
			rounds = append(rounds, g.round(rng))
		}
		res := outcomes(g.inputs(rounds), p, first, isCPU)
		if res[0].Detectable == nil {
			return one{}
		}
		dt := *res[0].Detectable
		shifted := g.withShift("cpu", math.Log1p(dt))
		rounds = rounds[:0]
		for range first {
			rounds = append(rounds, shifted.round(rng))
		}
		again := outcomes(shifted.inputs(rounds), p, first, nil)
		seq := runGate(shifted, p, rng)
		return one{detectable: dt, atLook: again[0].Outcome == Regression, sequence: slices.Contains(seq.failedBy, "cpu"), ok: true}
	})
	var c detectCheck
	for _, r := range runs {
		if !r.ok {
			continue
		}
		c.gates++
		c.detectable = append(c.detectable, r.detectable)
		if r.atLook {
			c.caughtAtLook++
		}
		if r.sequence {
			c.caughtSequential++
		}
	}
	slices.Sort(c.detectable)
	return c
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
