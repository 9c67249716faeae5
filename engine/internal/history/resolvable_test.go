package history

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/simtest"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// TestResolvableHasNinetyPercentPower checks Resolvable against the gate's
// own statistics: fixed gates of n pairs whose runs vary independently by
// spread, with head slower by Resolvable(spread, n, alpha), must regress
// about 9 times in 10 (the normal approximation is not exact for the
// signed-rank test at small n, hence the band).
func TestResolvableHasNinetyPercentPower(t *testing.T) {
	simtest.Simulation(t)
	const trials = 250
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		spread float64
		pairs  int
		alpha  float64
	}{{0.01, 10, 0.05}, {0.03, 10, 0.05}, {0.02, 20, 0.05}, {0.02, 30, 0.01}, {0.05, 40, 0.01}} {
		effect := Resolvable(c.spread, c.pairs, c.alpha)
		caught := 0
		for range trials {
			in := stats.Input{Name: "cpu", Scale: stats.Relative, Threshold: 1e-6, Gates: true}
			for range c.pairs {
				in.Base = append(in.Base, math.Exp(c.spread*rng.NormFloat64()))
				in.Head = append(in.Head, (1+effect)*math.Exp(c.spread*rng.NormFloat64()))
			}
			r := stats.Outcomes([]stats.Input{in}, stats.Plan{Alpha: c.alpha, Min: c.pairs, Max: c.pairs}, c.pairs)[0]
			if r.Outcome == stats.Regression {
				caught++
			}
		}
		power := float64(caught) / trials
		t.Logf("spread %.0f%%, %d pairs, alpha %.2f: resolvable %+.2f%%, caught %.1f%%", 100*c.spread, c.pairs, c.alpha, 100*effect, 100*power)
		if power < 0.8 || power > 0.97 {
			t.Errorf("spread %.2f, %d pairs: a change of Resolvable (%+.3f) was caught in %.0f%% of gates, want about 90%%", c.spread, c.pairs, effect, 100*power)
		}
	}
}
