package changepoint

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/stats"
)

// TestSimulation measures the detection on synthetic nightly series; its
// tables are docs/trends-detection.md. It takes a few minutes, so it runs
// only when asked:
//
//	PERFGATE_CHANGEPOINT_SIM=1 go test ./internal/changepoint -run Simulation -v -timeout 30m
func TestSimulation(t *testing.T) {
	if os.Getenv("PERFGATE_CHANGEPOINT_SIM") == "" {
		t.Skip("set PERFGATE_CHANGEPOINT_SIM=1 to run the simulation (minutes)")
	}
	o := Options{Relative: true, MinMagnitude: 0.01}
	var b strings.Builder

	// False alarms: 1,000 flat series of 40 nightlies per noise level.
	fmt.Fprintln(&b, "| noise | flat series | series with a false step | rate |\n|---|---:|---:|---:|")
	for _, noise := range []float64{0.01, 0.02, 0.05} {
		const flat = 1000
		alarms := 0
		for i := range flat {
			o.Seed = uint64(i)
			if c, _ := Detect(synthetic(40, 0, 0, noise, uint64(100000+i)), o); len(c) > 0 {
				alarms++
			}
		}
		fmt.Fprintf(&b, "| %.0f%% | %d | %d | %.2f%% |\n", 100*noise, flat, alarms, 100*float64(alarms)/flat)
	}

	// Power: a step at 25 of 40 (15 nightlies after it).
	fmt.Fprintln(&b, "\n| step | noise | found | found within ±1 of its place | median place error |\n|---:|---:|---:|---:|---:|")
	for _, step := range []float64{0.02, 0.05, 0.20} {
		for _, noise := range []float64{0.01, 0.02, 0.05} {
			const series = 500
			found, near := 0, 0
			var errs []float64
			for i := range series {
				o.Seed = uint64(i)
				c, _ := Detect(synthetic(40, 25, step, noise, uint64(200000+i)), o)
				best := -1
				for j := range c {
					if best < 0 || abs(c[j].Index-25) < abs(c[best].Index-25) {
						best = j
					}
				}
				if best >= 0 && abs(c[best].Index-25) <= 5 {
					found++
					errs = append(errs, float64(abs(c[best].Index-25)))
					if abs(c[best].Index-25) <= 1 {
						near++
					}
				}
			}
			fmt.Fprintf(&b, "| %+.0f%% | %.0f%% | %.0f%% | %.0f%% | %s |\n", 100*step, 100*noise, 100*float64(found)/series, 100*float64(near)/series, medianText(errs))
		}
	}

	// Delay: 20 nightlies before the step, k after; how often it is found.
	ks := []int{4, 5, 6, 7, 8, 10, 12}
	fmt.Fprint(&b, "\n| step | noise |")
	for _, k := range ks {
		fmt.Fprintf(&b, " %d after |", k)
	}
	fmt.Fprint(&b, "\n|---:|---:|"+strings.Repeat("---:|", len(ks))+"\n")
	for _, c := range [][2]float64{{0.05, 0.01}, {0.05, 0.02}, {0.20, 0.02}, {0.20, 0.05}} {
		fmt.Fprintf(&b, "| %+.0f%% | %.0f%% |", 100*c[0], 100*c[1])
		for _, k := range ks {
			const series = 200
			found := 0
			for i := range series {
				o.Seed = uint64(i)
				xs := synthetic(20+k, 20, c[0], c[1], uint64(300000+i))
				for _, ch := range mustDetect(t, xs, o) {
					if abs(ch.Index-20) <= 1 {
						found++
						break
					}
				}
			}
			fmt.Fprintf(&b, " %.0f%% |", 100*float64(found)/series)
		}
		fmt.Fprintln(&b)
	}

	// A bump: 20 nightlies, a step up held for 8, then reverted; k after
	// the reversal. How often each step is found (within ±1 of its place).
	bumpKs := []int{4, 6, 8, 10, 12}
	fmt.Fprint(&b, "\n| step | noise | found |")
	for _, k := range bumpKs {
		fmt.Fprintf(&b, " %d after the reversal |", k)
	}
	fmt.Fprint(&b, "\n|---:|---:|---|"+strings.Repeat("---:|", len(bumpKs))+"\n")
	for _, c := range [][2]float64{{0.05, 0.01}, {0.20, 0.02}, {0.50, 0.02}} {
		up, down := make([]int, len(bumpKs)), make([]int, len(bumpKs))
		const series = 200
		for ki, k := range bumpKs {
			for i := range series {
				o.Seed = uint64(i)
				xs := synthetic(28+k, 20, c[0], c[1], uint64(400000+i))
				for j := 28; j < len(xs); j++ {
					xs[j] /= 1 + c[0]
				}
				for _, ch := range mustDetect(t, xs, o) {
					if abs(ch.Index-20) <= 1 {
						up[ki]++
					}
					if abs(ch.Index-28) <= 1 {
						down[ki]++
					}
				}
			}
		}
		for _, row := range []struct {
			name   string
			counts []int
		}{{"the step up", up}, {"its reversal", down}} {
			fmt.Fprintf(&b, "| %+.0f%% | %.0f%% | %s |", 100*c[0], 100*c[1], row.name)
			for _, n := range row.counts {
				fmt.Fprintf(&b, " %.0f%% |", 100*float64(n)/series)
			}
			fmt.Fprintln(&b)
		}
	}

	// False steps as trend meets them: a flat series grows by one
	// nightly at a time and is searched every night, from the 8th to the
	// 100th; a step reported on any night counts once (by its place).
	fmt.Fprintln(&b, "\n| noise | flat sequences of 100 nights | distinct false steps | per 100 nights |\n|---|---:|---:|---:|")
	for _, noise := range []float64{0.01, 0.05} {
		const sequences = 100
		falseSteps := 0
		for i := range sequences {
			xs := synthetic(100, 0, 0, noise, uint64(500000+i))
			seen := map[int]bool{}
			for night := 8; night <= len(xs); night++ {
				o.Seed = uint64(i*1000 + night)
				for _, ch := range mustDetect(t, xs[:night], o) {
					seen[ch.Index] = true
				}
			}
			falseSteps += len(seen)
		}
		fmt.Fprintf(&b, "| %.0f%% | %d | %d | %.2f |\n", 100*noise, sequences, falseSteps, 100*float64(falseSteps)/(sequences*100))
	}
	t.Log("\n" + b.String())
}

func mustDetect(t *testing.T, xs []float64, o Options) []Change {
	c, err := Detect(xs, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func medianText(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	m := stats.Median(xs)
	if m == math.Trunc(m) {
		return fmt.Sprintf("%.0f", m)
	}
	return fmt.Sprintf("%.1f", m)
}
