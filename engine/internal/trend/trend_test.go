package trend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// syntheticEntry is a nightly entry of commit i: allocations step up by
// 30% from step on, CPU is noise on two machines.
func syntheticEntry(i, step int, machine string, rng *rand.Rand) history.Entry {
	allocs := 100.0
	if i >= step {
		allocs = 130
	}
	noise := func(v float64) float64 { return v * math.Exp(0.01*rng.NormFloat64()) }
	commit := fmt.Sprintf("%040x", i+1)
	return history.Entry{
		Schema: history.Schema, Kind: history.KindEntry, ID: fmt.Sprintf("%s@%d", commit, i), Config: "perfgate", Commit: commit, Label: commit[:7],
		Time: time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, i), Verdict: report.Pass, Runs: 6,
		Fingerprint: history.Fingerprint{Machine: machine, CPUModel: "CPU " + machine, CPUs: 4, Target: "local", Confinement: "cgroup v2", CPUMillicores: 1000},
		Metrics: map[string]history.Summary{
			"cpu":    {Unit: "µs/req", Median: noise(40), Low: 39, High: 41, N: 6},
			"allocs": {Unit: "allocs/req", Median: noise(allocs), Low: allocs - 1, High: allocs + 1, N: 6},
		},
	}
}

func TestRunFindsAStepAcrossMachinesAndWritesItsOutputs(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var records []any
	for i := 0; i < 24; i++ {
		machine := "0000000000a1"
		if i%3 == 2 {
			machine = "0000000000a2"
		}
		records = append(records, syntheticEntry(i, 12, machine, rng))
	}
	invalid := syntheticEntry(30, 0, "0000000000a1", rng)
	invalid.Verdict = report.Invalid
	records = append(records, invalid)
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(history.Path(dir, "perfgate"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"schema": 1, "kind": "entry", "id": "x", "commit": `) // cut short by a crash
	f.Close()

	out := t.TempDir()
	tr, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: out, Stderr: os.Stderr,
		Settings: Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment, Budget: DefaultBudget}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Entries != 25 || tr.Used != 24 || len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "line 26") {
		t.Errorf("entries %d used %d warnings %q; want 25, 24 and the cut line", tr.Entries, tr.Used, tr.Warnings)
	}
	var cpuSeries, allocSeries []Series
	for _, s := range tr.Series {
		switch s.Metric {
		case "cpu":
			cpuSeries = append(cpuSeries, s)
		case "allocs":
			allocSeries = append(allocSeries, s)
		}
	}
	if len(cpuSeries) != 2 || len(cpuSeries[0].Points) != 16 || len(cpuSeries[1].Points) != 8 || len(allocSeries) != 1 || len(allocSeries[0].Points) != 24 {
		t.Fatalf("series: %d cpu, %d allocs; want cpu per machine (16 and 8 points) and one allocs series of 24", len(cpuSeries), len(allocSeries))
	}
	for _, s := range cpuSeries {
		if s.Spread < 0.005 || s.Spread > 0.02 {
			t.Errorf("cpu on %s: spread %.4f of medians drawn with 1%% noise", s.MachineDescription, s.Spread)
		}
		if len(s.Steps) != 0 {
			t.Errorf("cpu on %s has steps %+v in noise alone", s.MachineDescription, s.Steps)
		}
	}
	steps := allocSeries[0].Steps
	if len(steps) != 1 || steps[0].Index != 12 || steps[0].Direction != Regression || math.Abs(steps[0].Magnitude-0.3) > 0.03 || steps[0].Confirmation != nil {
		t.Fatalf("allocs steps %+v; want one unconfirmed +30%% regression at 12", steps)
	}
	if tr.Alarm.State != AlarmNone {
		t.Errorf("alarm %s from an unconfirmed step", tr.Alarm.State)
	}
	for name, want := range map[string]string{SummaryMD: "▁", IndexHTML: "<svg", AlarmMD: Marker("perfgate"), TrendJSON: `"schema": 1`} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q (%v)", name, want, err)
		}
	}
	var back Trend
	data, _ := os.ReadFile(filepath.Join(out, TrendJSON))
	if err := json.Unmarshal(data, &back); err != nil || back.Alarm.State != AlarmNone {
		t.Errorf("trend.json: %v %+v", err, back.Alarm)
	}
}

// flaky is a Checker whose gates fail (a build that broke, say) until
// fixed, then find an allocs regression; it counts the gates it runs.
type flaky struct {
	fixed bool
	gates int
}

func (f *flaky) Gate(_ context.Context, _, _, _ string) (*report.Report, error) {
	f.gates++
	if !f.fixed {
		return nil, fmt.Errorf("build base: exit status 1")
	}
	return &report.Report{Verdict: report.Regression, Metrics: []report.Metric{{Name: "allocs", Outcome: report.Regression, Delta: 0.3, CI: [2]float64{0.25, 0.35}, CILevel: 0.95}}}, nil
}

func (f *flaky) Commits(_ context.Context, _, after string) ([]string, error) {
	return []string{after}, nil
}

// TestAFailedConfirmationIsTriedAgainOnLaterNights: a step whose gate could
// not run is not settled: the next nights try it again, each attempt is
// kept, and after maxAttempts failures it costs no more gates. A cause that
// passes (the gate runs on a later night) confirms the step and opens the
// alarm.
func TestAFailedConfirmationIsTriedAgainOnLaterNights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var records []any
	for i := 0; i < 24; i++ {
		records = append(records, syntheticEntry(i, 12, "0000000000a1", rng))
	}
	night := time.Date(2026, 10, 25, 3, 0, 0, 0, time.UTC)
	trendOn := func(t *testing.T, dir string, checker Checker) *Trend {
		t.Helper()
		night = night.AddDate(0, 0, 1)
		tr, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: t.TempDir(), Stderr: io.Discard, Checkout: checker,
			Settings: Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment, Budget: DefaultBudget},
			Now:      func() time.Time { return night }})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	allocsStep := func(tr *Trend) *Step {
		for _, s := range tr.Series {
			if s.Metric == "allocs" && len(s.Steps) == 1 {
				return &s.Steps[0]
			}
		}
		t.Fatalf("no allocs step in %+v", tr.Series)
		return nil
	}

	dir := t.TempDir()
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
		t.Fatal(err)
	}
	broken := &flaky{}
	for attempt := 1; attempt <= maxAttempts+1; attempt++ {
		tr := trendOn(t, dir, broken)
		if c := allocsStep(tr).Confirmation; c == nil || c.Status != history.Failed || tr.Alarm.State != AlarmNone {
			t.Fatalf("night %d: confirmation %+v, alarm %s; want failed and no alarm", attempt, c, tr.Alarm.State)
		}
	}
	file, _ := history.Read(dir, "perfgate")
	if broken.gates != maxAttempts || len(file.Confirmations) != maxAttempts {
		t.Errorf("%d gates and %d confirmations kept over %d nights; want %d of each", broken.gates, len(file.Confirmations), maxAttempts+1, maxAttempts)
	}

	dir = t.TempDir()
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
		t.Fatal(err)
	}
	healed := &flaky{}
	trendOn(t, dir, healed)
	healed.fixed = true
	tr := trendOn(t, dir, healed)
	if c := allocsStep(tr).Confirmation; c == nil || c.Status != history.Confirmed || tr.Alarm.State != AlarmOpen || healed.gates != 2 {
		t.Errorf("after the cause passed: confirmation %+v, alarm %s, %d gates; want confirmed, open, 2", c, tr.Alarm.State, healed.gates)
	}
	tr = trendOn(t, dir, healed)
	if healed.gates != 2 || tr.Alarm.State != AlarmOpen {
		t.Errorf("a confirmed step was gated again (%d gates) or the alarm closed (%s)", healed.gates, tr.Alarm.State)
	}
}
