package verdict

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestPairedEstimatesMeasureWithoutAThreshold: a 3% allocation change, far
// below any gate's threshold here, is estimated at +3% with an interval
// at PairedLevel that leaves zero out; CPU, equal up to a wobble, holds
// zero. Only relative metrics are estimated (errors are counted events).
func TestPairedEstimatesMeasureWithoutAThreshold(t *testing.T) {
	got := map[string]report.PairedEstimate{}
	for _, e := range PairedEstimates(runs(14, 103)) {
		got[e.Name] = e
	}
	allocs, cpu := got["allocs"], got["cpu"]
	if math.Abs(allocs.Estimate-0.03) > 0.001 || allocs.CI[0] <= 0 || allocs.Pairs != 14 || math.Abs(allocs.Level-PairedLevel) > 0.001 {
		t.Errorf("allocs %+v; want +3%% with a %.1f%% interval above zero over 14 pairs", allocs, 100*PairedLevel)
	}
	if cpu.CI[0] > 0 || cpu.CI[1] < 0 || math.Abs(cpu.Estimate) > 0.01 {
		t.Errorf("cpu %+v; want an interval holding zero", cpu)
	}
	if _, ok := got["errors"]; ok {
		t.Error("errors are counted events, not a ratio of rounds: no paired estimate")
	}
}

func TestMinPairedRoundsIsTheFewestThatReachPairedLevel(t *testing.T) {
	miss := func(n int) float64 { return 2 / math.Pow(2, float64(n)) }
	if RoundsFor(1-PairedLevel) != MinPairedRounds {
		t.Errorf("RoundsFor(%g) = %d, MinPairedRounds %d", 1-PairedLevel, RoundsFor(1-PairedLevel), MinPairedRounds)
	}
	if miss(MinPairedRounds) > 1-PairedLevel || miss(MinPairedRounds-1) <= 1-PairedLevel {
		t.Errorf("%d rounds: chance %g; %d rounds: %g; want the first at most %g", MinPairedRounds, miss(MinPairedRounds), MinPairedRounds-1, miss(MinPairedRounds-1), 1-PairedLevel)
	}
}
