package stats

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestLooksAndLevels(t *testing.T) {
	cases := []struct {
		plan  Plan
		looks []int
	}{
		{Plan{Alpha: 0.01, Min: 10, Max: 10}, []int{10}},
		{Plan{Alpha: 0.01, Min: 10, Max: 0}, []int{10}},
		{Plan{Alpha: 0.01, Min: 12, Max: 24}, []int{12, 16, 20, 24}},
		{Plan{Alpha: 0.01, Min: 10, Max: 20}, []int{10, 13, 17, 20}},
		{Plan{Alpha: 0.01, Min: 12, Max: 13}, []int{12, 13}},
	}
	for _, c := range cases {
		if got := c.plan.Looks(); !slices.Equal(got, c.looks) {
			t.Errorf("%+v: looks %v, want %v", c.plan, got, c.looks)
		}
		spent := 0.0
		for _, n := range c.plan.Looks() {
			spent += c.plan.LevelAt(n)
			if !c.plan.IsLook(n) {
				t.Errorf("%+v: %d is a look", c.plan, n)
			}
		}
		if math.Abs(spent-c.plan.Alpha) > 1e-15 {
			t.Errorf("%+v: the looks spend %v, want alpha %v", c.plan, spent, c.plan.Alpha)
		}
	}
	p := Plan{Alpha: 0.01, Min: 12, Max: 24}
	if p.LevelAt(12) != 0.005 || p.LevelAt(13) != p.LevelAt(16) || p.LevelAt(30) != p.LevelAt(24) || p.LevelAt(5) != p.LevelAt(12) {
		t.Errorf("levels %v %v %v %v %v", p.LevelAt(5), p.LevelAt(12), p.LevelAt(13), p.LevelAt(16), p.LevelAt(30))
	}
	if p.IsLook(13) || p.IsLook(11) || !p.IsLook(25) {
		t.Error("13 and 11 are not looks; past the maximum is")
	}
}

func TestMinRounds(t *testing.T) {
	for _, c := range []struct {
		alpha        float64
		family, want int
	}{
		{0.01, 1, 7}, {0.01, 6, 10}, {0.01, 9, 10}, {0.01, 11, 11}, {0.05, 6, 7}, {0.001, 6, 13},
	} {
		if got := MinRounds(c.alpha, c.family); got != c.want {
			t.Errorf("MinRounds(%v, %d) = %d, want %d", c.alpha, c.family, got, c.want)
		}
	}
}

func TestCheckRefusesAGateThatCannotFail(t *testing.T) {
	family := []string{"cpu", "allocs", "bytes", "errors", "goroutines", "heap"}
	if err := (Plan{Alpha: 0.01, Min: 12, Max: 24}).Check(family); err != nil {
		t.Errorf("12 to 24 rounds at 0.01 must be feasible: %v", err)
	}
	err := (Plan{Alpha: 0.01, Min: 8, Max: 8}).Check(family)
	var infeasible *InfeasibleError
	if !errors.As(err, &infeasible) || infeasible.Rounds != 10 || infeasible.Max != 12 {
		t.Fatalf("8 fixed rounds: %v", err)
	}
	for _, want := range []string{"pairs 8", "alpha 0.01", "6 gating metrics", "cpu, allocs", "at least 10"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if infeasible.Alpha > 0.0235 || infeasible.Alpha < 0.0234 {
		t.Errorf("smallest workable alpha %v, want 6/256", infeasible.Alpha)
	}
	// Later looks get less of alpha: from 8 rounds, the maximum must reach
	// 12, where a look gets 0.01/6 and 2^-12 is below it over 6 metrics.
	if err := (Plan{Alpha: 0.01, Min: 6, Max: 8}).Check(family); !errors.As(err, &infeasible) || infeasible.Max != 12 {
		t.Errorf("6 to 8 rounds: %v", err)
	}
}
