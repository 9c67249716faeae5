package changepoint

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// synthetic is a series of n nightly medians with multiplicative noise
// (log-normal, sd noise) and a step of size step (a fraction) at index at
// (none when at ≤ 0), drawn from seed.
func synthetic(n, at int, step, noise float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([]float64, n)
	for i := range xs {
		level := 100.0
		if at > 0 && i >= at {
			level *= 1 + step
		}
		xs[i] = level * math.Exp(noise*rng.NormFloat64())
	}
	return xs
}

// fixture is one named synthetic series of the golden test.
type fixture struct {
	Name   string
	N, At  int
	Step   float64
	Noise  float64
	Second *[2]float64 // an optional second step: index and size
	Seed   uint64
}

func (f fixture) series() []float64 {
	xs := synthetic(f.N, f.At, f.Step, f.Noise, f.Seed)
	if f.Second != nil {
		for i := int(f.Second[0]); i < len(xs); i++ {
			xs[i] *= 1 + f.Second[1]
		}
	}
	return xs
}

// fixtures are the golden series: every step size against every noise
// level, flat series, and two steps.
func fixtures() []fixture {
	var fs []fixture
	seed := uint64(1)
	for _, noise := range []float64{0.01, 0.02, 0.05} {
		fs = append(fs, fixture{Name: fmt.Sprintf("flat, noise %.0f%%", 100*noise), N: 40, Noise: noise, Seed: seed})
		seed++
		for _, step := range []float64{0.02, 0.05, 0.20} {
			fs = append(fs, fixture{Name: fmt.Sprintf("step %+.0f%% at 25, noise %.0f%%", 100*step, 100*noise), N: 40, At: 25, Step: step, Noise: noise, Seed: seed})
			seed++
		}
	}
	fs = append(fs,
		fixture{Name: "step -20% at 10 of 30, noise 2%", N: 30, At: 10, Step: -0.2, Noise: 0.02, Seed: 40},
		fixture{Name: "steps +10% at 15 and -10% at 40 of 60, noise 2%", N: 60, At: 15, Step: 0.10, Noise: 0.02, Second: &[2]float64{40, -1 + 1/1.10}, Seed: 41},
		fixture{Name: "step +5% at 30 of 60, noise 1%", N: 60, At: 30, Step: 0.05, Noise: 0.01, Seed: 42},
	)
	return fs
}
