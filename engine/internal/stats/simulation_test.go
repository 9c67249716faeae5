package stats

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The simulations behind docs/statistics.md. The unit tests below run small
// versions; the full tables come from
//
//	go test ./internal/stats -run Simulation -simulate -v -timeout 1h
var simulate = flag.Bool("simulate", false, "run the long simulations of docs/statistics.md and print their tables")

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
	// poisson, when > 0, makes the difference the difference of two
	// Poisson counts with this mean, times sd: discrete, with ties and
	// zeros, like goroutines retained per 1,000 requests.
	poisson float64
}

type gateModel []metricModel

// defaultGate is the simulated gate: CPU with the given threshold and
// per-round SD, and the other gating metrics at the configuration's
// default thresholds with the noise seen in A/A duets (docs/statistics.md):
// allocations and bytes 0.1% per round, correlated; no errors at all;
// goroutines retained per 1,000 requests almost always equal (a retained
// goroutine in a round of 1,500 requests is 0.67 per 1,000); live heap
// retained per 1,000 requests with an SD of 10 KB against a 64 KiB
// threshold.
func defaultGate(cpuThreshold, cpuSD float64, noise noiseModel) gateModel {
	return gateModel{
		{name: "cpu", threshold: cpuThreshold, gates: true, sd: cpuSD, noise: noise, correlated: -1},
		{name: "allocs", threshold: 0.02, gates: true, sd: 0.001, noise: noise, correlated: -1},
		{name: "bytes", threshold: 0.03, gates: true, sd: 0.001, noise: noise, correlated: 1, rho: 0.9},
		{name: "errors", scale: Absolute, threshold: 0.001, gates: true, correlated: -1},
		{name: "goroutines", scale: Absolute, threshold: 1, gates: true, sd: 1000.0 / 1500, poisson: 0.05, correlated: -1},
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

// round draws one round's differences.
func (g gateModel) round(rng *rand.Rand) []float64 {
	z := make([]float64, len(g))
	d := make([]float64, len(g))
	for i, m := range g {
		switch {
		case m.poisson > 0:
			d[i] = m.shift + m.sd*float64(poisson(rng, m.poisson)-poisson(rng, m.poisson))
			continue
		case m.sd == 0:
			d[i] = m.shift
			continue
		}
		z[i] = m.noise.draw(rng)
		if m.correlated >= 0 {
			z[i] = m.rho*z[m.correlated] + math.Sqrt(1-m.rho*m.rho)*z[i]
		}
		d[i] = m.shift + m.sd*z[i]
	}
	return d
}

func poisson(rng *rand.Rand, mean float64) int {
	limit, k, p := math.Exp(-mean), 0, rng.Float64()
	for p > limit {
		k++
		p *= rng.Float64()
	}
	return k
}

// inputs turns rounds of differences into Decide's inputs.
func (g gateModel) inputs(rounds [][]float64) []Input {
	in := make([]Input, len(g))
	for i, m := range g {
		in[i] = Input{Name: m.name, Scale: m.scale, Threshold: m.threshold, Gates: m.gates}
		for _, d := range rounds {
			if m.scale == Relative {
				in[i].Base, in[i].Head = append(in[i].Base, 1), append(in[i].Head, math.Exp(d[i]))
			} else {
				in[i].Base, in[i].Head = append(in[i].Base, 0), append(in[i].Head, d[i])
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
// and it stops at the first look that is Decided, or at the last.
func runGate(g gateModel, p Plan, rng *rand.Rand) gateRun {
	var rounds [][]float64
	looks := p.Looks()
	var res []Result
	for j, n := range looks {
		for len(rounds) < n {
			rounds = append(rounds, g.round(rng))
		}
		res = decide(g.inputs(rounds), p, n, nil)
		if Decided(res) || j == len(looks)-1 {
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
	gates                          int
	failed, failedCPU, inconcl     int
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
		var rounds [][]float64
		for range first {
			rounds = append(rounds, g.round(rng))
		}
		res := decide(g.inputs(rounds), p, first, isCPU)
		if res[0].Detectable == nil {
			return one{}
		}
		dt := *res[0].Detectable
		shifted := g.withShift("cpu", math.Log1p(dt))
		rounds = rounds[:0]
		for range first {
			rounds = append(rounds, shifted.round(rng))
		}
		again := decide(shifted.inputs(rounds), p, first, nil)
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

// TestFalseFailureRateAcrossLooks: with nothing changed and every threshold
// at 0 (so only the test protects the gate), the share of gates that fail
// stays within alpha over all the looks and metrics.
func TestFalseFailureRateAcrossLooks(t *testing.T) {
	p := Plan{Alpha: 0.05, Min: 12, Max: 24}
	for _, noise := range []noiseModel{normalNoise, t3Noise} {
		g := defaultGate(0.015, 0.008, noise).withThresholds(0)
		s := simulateGates(g, p, 3000, 1)
		// 3000 gates: 3 standard errors above alpha is 0.062.
		if f := float64(s.failed) / float64(s.gates); f > 0.062 {
			t.Errorf("%s noise: %d of %d A/A gates failed (%.3f), alpha %v", noise.name, s.failed, s.gates, f, p.Alpha)
		}
	}
}

// TestDetectableMatchesRealisedPower: a change of the size Detectable
// reports is caught at the same look about DetectablePower of the time:
// a little more is fine (it errs on the side of promising less), less by
// more than 4 points is not. 600 experiments make a standard error of 1.2
// points.
func TestDetectableMatchesRealisedPower(t *testing.T) {
	for _, p := range []Plan{{Alpha: 0.01, Min: 12, Max: 24}, {Alpha: 0.05, Min: 8, Max: 8}} {
		c := checkCouldDetect(defaultGate(0.015, 0.008, normalNoise), p, 600, 1)
		got := float64(c.caughtAtLook) / float64(c.gates)
		if c.gates < 550 || got < DetectablePower-0.04 || got > DetectablePower+0.06 {
			t.Errorf("plan %+v: caught %d of %d (%.3f) at the detectable change, want about %v", p, c.caughtAtLook, c.gates, got, DetectablePower)
		}
	}
}

// TestSimulation prints the tables of docs/statistics.md.
func TestSimulation(t *testing.T) {
	if !*simulate {
		t.Skip("long; run with -simulate")
	}
	// The recommended defaults (docs/statistics.md).
	defaults := Plan{Alpha: 0.01, Min: 14, Max: 28}
	const cpuThreshold, sd = 0.015, 0.008
	var out strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }

	w("\n### Smallest number of valid rounds that can reach significance\n\n")
	w("fixed (one look) / first look of a sequential plan (half of alpha)\n\n| alpha | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, alpha := range []float64{0.001, 0.005, 0.01, 0.02, 0.05, 0.1} {
		w("| %g |", alpha)
		for family := 1; family <= 9; family++ {
			w(" %d / %d |", MinRounds(alpha, family), MinRounds(alpha/2, family))
		}
		w("\n")
	}

	w("\n### A/A: false failures over all looks (plan %+v, CPU threshold %.1f%%)\n\n", defaults, 100*cpuThreshold)
	w("| noise | plan | thresholds | gates | failed (95%% CI) | inconclusive | mean rounds | p95 rounds | stopped at Min |\n|---|---|---|---|---|---|---|---|---|\n")
	const aa = 20000
	for _, sc := range []struct {
		name  string
		noise noiseModel
		bias  float64
		zero  bool // every threshold 0: only the test protects
		plan  Plan
	}{
		{"normal", normalNoise, 0, false, defaults},
		{"normal", normalNoise, 0, true, defaults},
		{"normal, CPU bias +0.1%", normalNoise, 0.001, false, defaults},
		{"normal, CPU bias +0.1%", normalNoise, 0.001, true, defaults},
		{"t(3)", t3Noise, 0, false, defaults},
		{"t(3)", t3Noise, 0, true, defaults},
		{"5% ×5 spikes", spikyNoise, 0, false, defaults},
		{"5% ×5 spikes", spikyNoise, 0, true, defaults},
		{"normal", normalNoise, 0, true, Plan{Alpha: 0.01, Min: 12, Max: 12}},
		{"normal", normalNoise, 0, true, Plan{Alpha: 0.05, Min: 12, Max: 24}},
	} {
		g := defaultGate(cpuThreshold, sd, sc.noise).withShift("cpu", sc.bias)
		th := "defaults"
		if sc.zero {
			g, th = g.withThresholds(0), "all 0"
		}
		s := simulateGates(g, sc.plan, aa, 10)
		w("| %s | %s | %s | %d | %s | %.4f | %.1f | %.0f | %.1f%% |\n", sc.name, planText(sc.plan), th, s.gates, rate(s.failed, s.gates),
			float64(s.inconcl)/float64(s.gates), s.meanRounds, s.p95Rounds, s.atMinPct)
	}

	for _, csd := range []float64{0.008, 0.010, 0.014} {
		w("\n### Power for CPU (SD %.1f%% per round, threshold %.1f%%, plan %s)\n\n", 100*csd, 100*cpuThreshold, planText(defaults))
		w("| true change | gates | failed on CPU | inconclusive | mean rounds | p95 rounds | stopped at Min |\n|---|---|---|---|---|---|---|\n")
		for _, change := range []float64{0, 0.005, 0.01, 0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.05, 0.10} {
			g := defaultGate(cpuThreshold, csd, normalNoise).withShift("cpu", math.Log1p(change))
			s := simulateGates(g, defaults, 4000, 20)
			w("| %+.2f%% | %d | %s | %.3f | %.1f | %.0f | %.1f%% |\n", 100*change, s.gates, rate(s.failedCPU, s.gates), float64(s.inconcl)/float64(s.gates), s.meanRounds, s.p95Rounds, s.atMinPct)
		}
	}

	w("\n### Could detect vs realised detection (CPU threshold %.1f%%)\n\n", 100*cpuThreshold)
	w("| plan | CPU noise | could detect: median (p10–p90) | caught at that look | caught by the sequential gate |\n|---|---|---|---|---|\n")
	for _, sc := range []struct {
		p     Plan
		sd    float64
		noise noiseModel
	}{
		{defaults, 0.008, normalNoise}, {defaults, 0.010, normalNoise}, {defaults, 0.014, normalNoise},
		{defaults, 0.008, t3Noise}, {defaults, 0.008, spikyNoise},
		{Plan{Alpha: 0.01, Min: 10, Max: 10}, 0.008, normalNoise},
		{Plan{Alpha: 0.05, Min: 8, Max: 8}, 0.008, normalNoise},
		{Plan{Alpha: 0.01, Min: 40, Max: 40}, 0.008, normalNoise},
		{Plan{Alpha: 0.01, Min: 41, Max: 41}, 0.008, normalNoise},
		{Plan{Alpha: 0.01, Min: 100, Max: 100}, 0.008, normalNoise},
	} {
		c := checkCouldDetect(defaultGate(cpuThreshold, sc.sd, sc.noise), sc.p, 4000, 30)
		w("| %s | %s SD %.1f%% | %.2f%% (%.2f–%.2f%%) | %s | %s |\n", planText(sc.p), sc.noise.name, 100*sc.sd,
			100*quantile(c.detectable, 0.5), 100*quantile(c.detectable, 0.1), 100*quantile(c.detectable, 0.9),
			rate(c.caughtAtLook, c.gates), rate(c.caughtSequential, c.gates))
	}

	w("\n### Choosing the defaults (normal noise; gate time = p95 rounds × 14 s or 5 s + 20 s of builds)\n\n")
	w("| alpha | cpu threshold | pairs | CPU SD | A/A failed | A/A mean / p95 rounds | +2%% caught | +5%% caught (mean rounds) | +10%% caught | could detect (median) | A/A p95 gate time, 14 s / 5 s rounds |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, alpha := range []float64{0.01, 0.05} {
		for _, th := range []float64{0.01, 0.015, 0.02} {
			for _, mm := range [][2]int{{10, 20}, {12, 24}, {14, 28}, {16, 32}} {
				for _, csd := range []float64{0.008, 0.010} {
					p := Plan{Alpha: alpha, Min: mm[0], Max: mm[1]}
					g := defaultGate(th, csd, normalNoise)
					a := simulateGates(g, p, 4000, 40)
					var caught [3]summary
					for j, ch := range []float64{0.02, 0.05, 0.10} {
						caught[j] = simulateGates(g.withShift("cpu", math.Log1p(ch)), p, 1000, 41)
					}
					c := checkCouldDetect(g, p, 400, 42)
					w("| %g | %.1f%% | %d–%d | %.1f%% | %d/%d | %.1f / %.0f | %.3f | %.3f (%.1f) | %.3f | %.2f%% | %.0f s / %.0f s |\n", alpha, 100*th, mm[0], mm[1], 100*csd,
						a.failed, a.gates, a.meanRounds, a.p95Rounds, float64(caught[0].failedCPU)/1000, float64(caught[1].failedCPU)/1000, caught[1].meanRounds,
						float64(caught[2].failedCPU)/1000, 100*quantile(c.detectable, 0.5), 14*a.p95Rounds+20, 5*a.p95Rounds+20)
				}
			}
		}
	}
	t.Log(out.String())
}

func planText(p Plan) string {
	if p.Max <= p.Min {
		return fmt.Sprintf("α %g, %d rounds", p.Alpha, p.Min)
	}
	return fmt.Sprintf("α %g, %d–%d rounds", p.Alpha, p.Min, p.Max)
}
