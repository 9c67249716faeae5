package trend

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// bothGater confirms steps with gates that move allocations and bytes
// together: up across the commit at index up, down everywhere later.
type bothGater struct{ up string }

func (g bothGater) Gate(_ context.Context, _, after, _ string) (*report.Report, error) {
	outcome, delta := report.Improvement, -0.3
	if after == g.up {
		outcome, delta = report.Regression, 0.3
	}
	return &report.Report{Verdict: outcome, Metrics: []report.Metric{
		{Name: "allocs", Outcome: outcome, Delta: delta, CI: [2]float64{delta - 0.05, delta + 0.05}, CILevel: 0.95},
		{Name: "bytes", Outcome: outcome, Delta: delta / 3, CI: [2]float64{delta/3 - 0.01, delta/3 + 0.01}, CILevel: 0.95},
	}}, nil
}

func (bothGater) Commits(_ context.Context, _, after string) ([]string, error) {
	return []string{after}, nil
}

// TestAGateThatShowsAReversalClosesTheAlarm: allocations and bytes
// regress together and both steps are confirmed; allocations are then
// reverted, but the bytes series does not step (here: it stays high, as
// a borderline bump's can on a short history). The paired gate that
// confirms the allocations' reversal also shows the bytes' one, and that
// is enough to close the alarm; a gate from before the regression is not.
func TestAGateThatShowsAReversalClosesTheAlarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	entry := func(i int) history.Entry {
		e := syntheticEntry(i, 12, "0000000000a1", rng)
		allocs, bytes := 100.0, 1000.0
		if i >= 12 {
			allocs, bytes = 130, 1100
		}
		if i >= 24 {
			allocs = 100 // bytes' reversal does not show in its series
		}
		noise := func(v float64) float64 { return v * math.Exp(0.005*rng.NormFloat64()) }
		e.Metrics["allocs"] = history.Summary{Unit: "allocs/req", Median: noise(allocs), Low: allocs - 1, High: allocs + 1, N: 6}
		e.Metrics["bytes"] = history.Summary{Unit: "B/req", Median: noise(bytes), Low: bytes - 1, High: bytes + 1, N: 6}
		return e
	}
	dir := t.TempDir()
	run := func(nights int, night time.Time) *Trend {
		t.Helper()
		var records []any
		for i := 0; i < nights; i++ {
			records = append(records, entry(i))
		}
		if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
			t.Fatal(err)
		}
		tr, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: t.TempDir(), Stderr: io.Discard,
			Checkout: bothGater{up: syntheticEntry(12, 0, "", rng).Commit}, Now: func() time.Time { return night },
			Settings: Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment}})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	first := run(24, time.Date(2026, 10, 25, 4, 0, 0, 0, time.UTC))
	if first.Alarm.State != AlarmOpen || len(first.Alarm.Open) != 2 {
		t.Fatalf("after the regression: alarm %s with %d open; want open with allocs and bytes", first.Alarm.State, len(first.Alarm.Open))
	}
	later := run(36, time.Date(2026, 11, 6, 4, 0, 0, 0, time.UTC))
	if later.Alarm.State != AlarmResolved {
		t.Fatalf("after the reversal: alarm %+v; want resolved", later.Alarm)
	}
	file, _ := history.Read(dir, "perfgate")
	var shown []history.Confirmation
	for _, c := range file.Confirmations {
		if c.Metric == "bytes" && c.Outcome == report.Improvement {
			shown = append(shown, c)
		}
	}
	if len(shown) != 1 || shown[0].Status != history.Confirmed || shown[0].Before != syntheticEntry(23, 0, "", rng).Commit || shown[0].Reason == "" {
		t.Errorf("bytes reversal confirmations %+v; want one, confirmed by the allocations' gate across 23..24, saying so", shown)
	}
}
