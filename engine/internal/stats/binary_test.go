package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/simtest"
)

// The sign test of ±1 differences is the signed-rank test with every rank
// tied, and its p-values are binomial tails.
func TestSignTestIsTheSignedRankTestOfTiedRanks(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for up := 0; up <= n; up++ {
			d := make([]float64, 0, n+3)
			for i := range n {
				if i < up {
					d = append(d, 1)
				} else {
					d = append(d, -1)
				}
			}
			d = append(d, 0, 0, 0) // rounds where both or neither failed
			got, want := signTest(d), SignedRankTest(d)
			if got.N != n || math.Abs(got.PGreater-want.PGreater) > 1e-12 || math.Abs(got.PLess-want.PLess) > 1e-12 {
				t.Fatalf("n %d, up %d: sign test %+v, signed-rank %+v", n, up, got, want)
			}
		}
	}
	if p := signTest([]float64{1, 1, 1, 1, 1, 1, 1, 1}).PGreater; math.Abs(p-math.Pow(0.5, 8)) > 1e-15 {
		t.Errorf("8 of 8: p %v, want 2^-8", p)
	}
}

func TestBinomialAtLeast(t *testing.T) {
	tests := []struct {
		n, x int
		p    float64
		want float64
	}{
		{10, 0, 0.3, 1},
		{10, 11, 0.3, 0},
		{10, 10, 0.5, 1.0 / 1024},
		{4, 2, 0.5, 11.0 / 16},
		{20, 1, 0.1, 1 - math.Pow(0.9, 20)},
		{500, 260, 0.5, 0.19775539}, // exact: the sum of C(500, i) for i >= 260, over 2^500
	}
	for _, tt := range tests {
		if got := binomialAtLeast(tt.n, tt.x, tt.p); math.Abs(got-tt.want) > 1e-5 {
			t.Errorf("P(Bin(%d, %g) >= %d) = %v, want %v", tt.n, tt.p, tt.x, got, tt.want)
		}
	}
}

// The Clopper–Pearson bound, and the estimate's interval that follows it:
// its low bound is above 0 exactly when the sign test rejects.
func TestBinaryEstimateMatchesTheSignTest(t *testing.T) {
	if got, want := shareLowerBound(10, 10, 0.05), math.Pow(0.05, 0.1); math.Abs(got-want) > 1e-9 {
		t.Errorf("10 of 10 at 5%%: lower bound %v, want %v", got, want)
	}
	for _, alpha := range []float64{0.005, 0.05, 0.25} {
		for n := 1; n <= 30; n++ {
			for up := 0; up <= n; up++ {
				d := make([]float64, 40)
				for i := range n {
					d[i] = -1
					if i < up {
						d[i] = 1
					}
				}
				e := binaryEstimate(d, alpha, alpha)
				rejects := signTest(d).PGreater <= alpha
				if (e.Low > 1e-12) != rejects && math.Abs(e.Low) > 1e-9 {
					t.Fatalf("alpha %g, %d of %d: low bound %v, sign test rejects %v", alpha, up, n, e.Low, rejects)
				}
				if want := float64(2*up-n) / 40; e.Center != want || e.Low > e.Center || e.High < e.Center {
					t.Fatalf("alpha %g, %d of %d: estimate %+v, want %v inside its interval", alpha, up, n, e, want)
				}
			}
		}
	}
}

// binaryDetectable is the rate caught with DetectablePower: checked by
// simulation against the sign test it stands for.
func TestBinaryDetectableHasItsPower(t *testing.T) {
	if binaryDetectable(7, 0.005) != nil {
		t.Error("7 rounds cannot reach 0.005 (2^-7 > 0.005): want nil")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{8, 14, 28, 60} {
		rate := *binaryDetectable(n, 0.005)
		caught := 0
		const gates = 20000
		for range gates {
			d := make([]float64, n)
			for i := range d {
				if rng.Float64() < rate {
					d[i] = 1
				}
			}
			if signTest(d).PGreater <= 0.005 {
				caught++
			}
		}
		if got := float64(caught) / gates; math.Abs(got-DetectablePower) > 0.01 {
			t.Errorf("%d rounds, head failing in %.0f%% of them: caught %.3f, want %.2f", n, 100*rate, got, DetectablePower)
		}
	}
}

// With no change, failures strike either side alike, and the failures
// comparison calls a regression in at most alpha of gates, however common
// failures are: 5,000 simulated gates per rate (the exact test's size is
// at most alpha by construction; this checks the plumbing around it).
func TestFailuresWithNoChangeFailAtMostAlpha(t *testing.T) {
	simtest.Simulation(t)
	rng := rand.New(rand.NewPCG(3, 4))
	plan := Plan{Alpha: 0.01, Min: 14, Max: 14}
	for _, rate := range []float64{0.02, 0.1, 0.3, 0.7} {
		regressions := 0
		const gates = 5000
		for range gates {
			in := Input{Name: "failures", Scale: Binary, Gates: true}
			for range 14 {
				in.Base = append(in.Base, bernoulli(rng, rate))
				in.Head = append(in.Head, bernoulli(rng, rate))
			}
			if outcomes([]Input{in}, plan, 14, nil)[0].Outcome == Regression {
				regressions++
			}
		}
		if got := float64(regressions) / gates; got > plan.Alpha {
			t.Errorf("failures in %.0f%% of runs on both sides: %.4f of gates failed, want at most %g", 100*rate, got, plan.Alpha)
		}
	}
}

func bernoulli(rng *rand.Rand, p float64) float64 {
	if rng.Float64() < p {
		return 1
	}
	return 0
}
