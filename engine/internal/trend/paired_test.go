package trend

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/history"
)

// pairedNight is syntheticEntry paired with the night before: its CPU
// median drifts with the machine (16% night to night, as measured on
// shared runners), while its paired estimate holds the code's change
// (cpuStep from night step on) with a duet's 0.25% noise.
func pairedNight(i, step int, cpuStep float64, rng *rand.Rand) history.Entry {
	e := syntheticEntry(i, 1000, "0000000000a1", rng)
	level := 1.0
	if i >= step {
		level += cpuStep
	}
	cpu := e.Metrics["cpu"]
	cpu.Median = 40 * level * math.Exp(0.16*rng.NormFloat64())
	e.Metrics["cpu"] = cpu
	if i == 0 {
		return e
	}
	change := 0.0025 * rng.NormFloat64()
	if i == step {
		change += math.Log1p(cpuStep)
	}
	e.Paired = &history.Paired{With: syntheticEntry(i-1, 1000, "0000000000a1", rng).Commit, Experiment: "duet",
		Metrics: map[string]history.PairedEstimate{
			"cpu":    {Estimate: math.Expm1(change), CI: [2]float64{math.Expm1(change - 0.006), math.Expm1(change + 0.006)}, Level: 0.999, Pairs: 14},
			"allocs": {Estimate: 0, CI: [2]float64{-0.001, 0.001}, Level: 0.999, Pairs: 14},
		},
		Functions: []history.Function{{Profile: "cpu", Name: "crypto/sha256.block", Unit: "µs/req", Delta: 9}},
	}
	return e
}

func TestPairedNightsFindACPUStepTheMediansCannot(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	var records []any
	for i := 0; i < 16; i++ {
		records = append(records, pairedNight(i, 12, 0.03, rng))
	}
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
		t.Fatal(err)
	}
	tr, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: t.TempDir(), Stderr: os.Stderr,
		Settings: Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment, Budget: DefaultBudget}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tr.Series {
		switch s.Metric {
		case "cpu":
			if s.Detection != DetectPaired || len(s.Steps) != 1 {
				t.Fatalf("cpu: detection %q, steps %+v; want the one paired step", s.Detection, s.Steps)
			}
			st := s.Steps[0]
			if st.Index != 12 || st.Paired == nil || st.Direction != Regression || math.Abs(st.Magnitude-0.03) > 0.01 || st.P > 0.0011 {
				t.Errorf("cpu step %+v; want night 12, +3%%, from its paired estimate", st)
			}
			if s.Chain == nil || s.Chain.Nights != 15 || math.Abs(s.Chain.Change-0.03) > 0.01 || s.Chain.CI[0] <= 0 {
				t.Errorf("chain %+v; want 15 nights compounding to about +3%%, above zero", s.Chain)
			}
			if s.Spread < 0.05 || s.PairedSpread > 0.01 {
				t.Errorf("spread of medians %.3f, of paired nights %.4f; want the machine's drift in the first only", s.Spread, s.PairedSpread)
			}
		case "allocs":
			if s.Detection != DetectBoth || len(s.Steps) != 0 {
				t.Errorf("allocs: detection %q, steps %+v; want both searched, nothing found", s.Detection, s.Steps)
			}
		}
	}
}

// TestFlatPairedNightsFindNothing: nights whose paired intervals hold zero,
// or that moved less than the smallest step, are no steps; an entry paired
// with a commit that is not the night before's is no link.
func TestFlatPairedNightsFindNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var entries []history.Entry
	for i := 0; i < 30; i++ {
		entries = append(entries, pairedNight(i, 1000, 0, rng))
	}
	// Significant but below the smallest step: a 0.5% change.
	entries[10].Paired.Metrics["cpu"] = history.PairedEstimate{Estimate: 0.005, CI: [2]float64{0.003, 0.007}, Level: 0.999, Pairs: 14}
	// A weekly duet against a release: large, but not a link.
	entries[20].Paired.With = entries[5].Commit
	entries[20].Paired.Metrics["cpu"] = history.PairedEstimate{Estimate: 0.2, CI: [2]float64{0.19, 0.21}, Level: 0.999, Pairs: 14}
	series := buildSeries(entries)
	findSteps(series, Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment})
	for _, s := range series {
		if len(s.Steps) != 0 {
			t.Errorf("%s: steps %+v in flat nights", s.Metric, s.Steps)
		}
		if s.Metric == "cpu" && (s.Points[20].Paired != nil || s.Chain.Nights != 28) {
			t.Errorf("cpu: night 20 linked %v, chain %+v; want the reference duet left out of a 28-night chain", s.Points[20].Paired, s.Chain)
		}
	}
}

// TestShortPairedNightsShowNoStep: a night of 6 rounds reaches a 96.9%
// interval at most; at the default 99.9% it is not read for steps (its
// widest interval would miss zero by chance one night in 32), the trend
// says why, and the CPU medians are searched instead.
func TestShortPairedNightsShowNoStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var entries []history.Entry
	for i := 0; i < 10; i++ {
		e := pairedNight(i, 1000, 0, rng)
		if e.Paired != nil {
			e.Paired.Metrics["cpu"] = history.PairedEstimate{Estimate: 0.05, CI: [2]float64{0.02, 0.08}, Level: 1 - 2.0/64, Pairs: 6}
		}
		entries = append(entries, e)
	}
	series := buildSeries(entries)
	warnings := findSteps(series, Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment})
	for _, s := range series {
		if s.Metric == "cpu" && (len(s.Steps) != 0 || s.Detection != DetectMedians) {
			t.Errorf("cpu: detection %q, steps %+v; want the medians searched and no step from short nights", s.Detection, s.Steps)
		}
	}
	if len(warnings) == 0 || !strings.Contains(warnings[0], "cpu on ") || !strings.Contains(warnings[0], "paired nights of 6 rounds reach a 96.9% interval, not the 99.9% a step needs") || !strings.Contains(warnings[0], "set pairs.min to 11 or more") {
		t.Errorf("warnings %q; want the short nights named", warnings)
	}
}

// TestThePageChartsPairedNightsCompounded: a series with paired nights
// gets a second chart, the nights compounded from 0% with each night's
// interval as its whisker and the paired step marked there (not on the
// medians, which drift with the machine).
func TestThePageChartsPairedNightsCompounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var entries []history.Entry
	for i := 0; i < 16; i++ {
		entries = append(entries, pairedNight(i, 12, 0.03, rng))
	}
	series := buildSeries(entries)
	findSteps(series, Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment})
	for _, s := range series {
		if s.Metric != "cpu" {
			continue
		}
		if marks := chartOf(s).Marks; len(marks) != 0 {
			t.Errorf("the medians chart marks %+v; want the paired step on the chain's chart only", marks)
		}
		c, ok := chainChartOf(s)
		if !ok || len(c.Points) != 16 || c.Points[0].Median != 0 || c.Unit != "%" || !strings.Contains(c.Title, "paired nights compounded") {
			t.Fatalf("chain chart %+v (%v); want 16 points from 0%%", c, ok)
		}
		if len(c.Marks) != 1 || c.Marks[0].Index != 12 || math.Abs(c.Points[15].Median-3) > 1 {
			t.Errorf("marks %+v, last level %.2f%%; want the step at night 12 and about +3%% at the end", c.Marks, c.Points[15].Median)
		}
		for i, p := range c.Points[1:] {
			if !(p.Low <= p.Median && p.Median <= p.High) {
				t.Errorf("night %d: %.2f outside its whisker [%.2f, %.2f]", i+1, p.Median, p.Low, p.High)
			}
		}
	}
	if page := pageHTML(&Trend{Config: "perfgate", Series: series}); !strings.Contains(page, "that night&#39;s paired interval") {
		t.Error("the page has no chart of paired nights")
	}
}
