package trend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// planted is a repository's history in which commit culprit made cpu
// slower: a gate regresses when its base is before the culprit and its
// head at or after it. It counts the gates it runs.
type planted struct {
	commits []string // before, then the range
	culprit int      // index in commits
	invalid bool
	// belowThreshold makes the culprit's step +3%, significant but
	// "unchanged" against the gate's threshold.
	belowThreshold bool
	gates          [][2]string
}

func (p *planted) gate(_ context.Context, before, after, _ string) (*report.Report, error) {
	p.gates = append(p.gates, [2]string{before, after})
	if p.invalid {
		return &report.Report{Verdict: report.Invalid, Reason: "only 2 of 6 pairs are valid"}, nil
	}
	b, a := slices.Index(p.commits, before), slices.Index(p.commits, after)
	shown := report.Metric{Name: "cpu", Outcome: "unchanged", Delta: 0.001, CI: [2]float64{-0.01, 0.012}, CILevel: 0.95}
	if b < p.culprit && a >= p.culprit {
		shown = report.Metric{Name: "cpu", Outcome: "regression", Delta: 0.08, CI: [2]float64{0.06, 0.1}, CILevel: 0.95}
		if p.belowThreshold {
			// A step the gate's threshold does not call a regression.
			shown = report.Metric{Name: "cpu", Outcome: "unchanged", Delta: 0.03, CI: [2]float64{0.02, 0.04}, CILevel: 0.95}
		}
	}
	return &report.Report{Verdict: report.Pass, Metrics: []report.Metric{shown},
		Functions: []report.Function{{Profile: "cpu", Name: fmt.Sprintf("main.slow%d", a), Unit: "µs/req", Delta: 3}, {Profile: "allocs", Name: "x", Delta: 9}}}, nil
}

func (p *planted) rangeOf(_ context.Context, before, after string) ([]string, error) {
	b, a := slices.Index(p.commits, before), slices.Index(p.commits, after)
	if b < 0 || a < 0 {
		return nil, errors.New("unknown commit")
	}
	return p.commits[b+1 : a+1], nil
}

func TestConfirmBisectsWithinTheBudget(t *testing.T) {
	commits := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}
	for _, c := range []struct {
		name     string
		culprit  int
		budget   int
		status   string
		commit   string
		narrowed []string
		gates    int
	}{
		{"one commit, no bisection", 8, 3, history.Confirmed, "c8", nil, 1},
		{"culprit in the middle", 3, 3, history.Confirmed, "c3", nil, 4},
		{"culprit first", 1, 3, history.Confirmed, "c1", nil, 4},
		{"culprit last", 8, 3, history.Confirmed, "c8", nil, 4},
		{"budget runs out", 5, 1, history.Confirmed, "c8", []string{"c5", "c6", "c7", "c8"}, 2},
		{"no bisection budget", 5, 0, history.Confirmed, "c8", []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}, 1},
		{"not the code", 99, 3, history.NotConfirmed, "", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &planted{commits: commits, culprit: c.culprit}
			cf := &confirmer{gate: p.gate, commits: p.rangeOf, budget: c.budget, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
			before := "c0"
			if c.name == "one commit, no bisection" {
				before = "c7"
			}
			conf, _ := cf.confirm(context.Background(), Series{Metric: "cpu", Machine: "m1"}, Step{Before: before, After: "c8", Direction: Regression})
			if conf.Status != c.status || conf.Gates != c.gates || (c.status == history.Confirmed && conf.Commit != c.commit) || !slices.Equal(conf.Narrowed, c.narrowed) {
				t.Errorf("got %s at %s narrowed %v after %d gates %v; want %s at %s narrowed %v after %d", conf.Status, conf.Commit, conf.Narrowed, conf.Gates, p.gates, c.status, c.commit, c.narrowed, c.gates)
			}
			if c.status == history.Confirmed && (len(conf.Functions) != 1 || conf.Functions[0].Profile != "cpu" || conf.Estimate != 0.08) {
				t.Errorf("functions %+v estimate %v; want the cpu function of the last confirming gate", conf.Functions, conf.Estimate)
			}
			if conf.ID != "cpu|m1|"+before+"|c8" || conf.Kind != history.KindConfirmation || conf.Schema != history.Schema {
				t.Errorf("confirmation header %q %q %d", conf.ID, conf.Kind, conf.Schema)
			}
		})
	}
}

func TestConfirmFailsOnAnInvalidGateAndOnUnpairedMetrics(t *testing.T) {
	p := &planted{commits: []string{"c0", "c1"}, culprit: 1, invalid: true}
	cf := &confirmer{gate: p.gate, commits: p.rangeOf, budget: 3, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
	conf, _ := cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c1", Direction: Regression})
	if conf.Status != history.Failed || conf.Reason != "the paired gate of c0 and c1 is invalid: only 2 of 6 pairs are valid" {
		t.Errorf("invalid gate: %s %q", conf.Status, conf.Reason)
	}
	conf, _ = cf.confirm(context.Background(), Series{Metric: "throughput"}, Step{Before: "c0", After: "c1", Direction: Improvement})
	if conf.Status != history.Failed || len(p.gates) != 1 {
		t.Errorf("throughput: %s %q after %d gates; want failed without a gate", conf.Status, conf.Reason, len(p.gates))
	}
	conf, _ = cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c1", After: "c1", Direction: Regression})
	if conf.Status != history.NotConfirmed || len(p.gates) != 1 {
		t.Errorf("same commit: %s %q; want not confirmed without a gate", conf.Status, conf.Reason)
	}
}

func TestConfirmSharesGatesAcrossMetrics(t *testing.T) {
	p := &planted{commits: []string{"c0", "c1"}, culprit: 1}
	cf := &confirmer{gate: p.gate, commits: p.rangeOf, budget: 3, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
	_, _ = cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c1", Direction: Regression})
	_, _ = cf.confirm(context.Background(), Series{Metric: "latency_p99"}, Step{Before: "c0", After: "c1", Direction: Regression})
	if len(p.gates) != 1 {
		t.Errorf("%d gates for two metrics stepping in one range, want 1", len(p.gates))
	}
}

// TestTopFunctionsListsAFunctionOnce: a function's flat and cum rows are
// one line of the alarm, with the larger change.
func TestTopFunctionsListsAFunctionOnce(t *testing.T) {
	rep := &report.Report{Functions: []report.Function{
		{Profile: "allocs", Kind: "flat", Name: "fmt.Sprintf", Unit: "allocs/req", Delta: 15.9},
		{Profile: "allocs", Kind: "cum", Name: "fmt.Sprintf", Unit: "allocs/req", Delta: 16.2},
		{Profile: "allocs", Kind: "cum", Name: "main.handleSearch", Unit: "allocs/req", Delta: 19.6},
		{Profile: "allocs", Kind: "flat", Name: "main.other", Unit: "B/req", Delta: 900},
	}}
	got := history.TopFunctions(rep, metric.Allocs, 5)
	if len(got) != 2 || got[0].Name != "main.handleSearch" || got[1].Name != "fmt.Sprintf" || got[1].Delta != 16.2 {
		t.Errorf("top functions %+v; want handleSearch, then fmt.Sprintf once at +16.2", got)
	}
}

// TestConfirmFindsAStepBelowTheGateThreshold: a +3% step the gate calls
// unchanged (its threshold is higher) is still main's step: the interval
// leaves no change out and it is above the smallest step.
func TestConfirmFindsAStepBelowTheGateThreshold(t *testing.T) {
	p := &planted{commits: []string{"c0", "c1", "c2", "c3", "c4"}, culprit: 3, belowThreshold: true}
	cf := &confirmer{gate: p.gate, commits: p.rangeOf, budget: 3, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
	conf, _ := cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c4", Direction: Regression})
	if conf.Status != history.Confirmed || conf.Commit != "c3" || conf.Estimate != 0.03 {
		t.Errorf("got %s at %s (%+v) after %v; want confirmed at c3, +3%%", conf.Status, conf.Commit, conf.Estimate, p.gates)
	}
	cf.minStep = 0.05
	cf.gates = nil
	conf, _ = cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c4", Direction: Regression})
	if conf.Status != history.NotConfirmed {
		t.Errorf("a +3%% step with a 5%% smallest step: %s; want not confirmed", conf.Status)
	}
}

// TestAPairedStepIsConfirmedByItsNight: a step found from one night's duet
// needs no gate when its range is one commit; a range of several is
// bisected from there, and a checkout that cannot list the range still
// confirms the step at the night's commit.
func TestAPairedStepIsConfirmedByItsNight(t *testing.T) {
	night := &history.PairedEstimate{Estimate: 0.031, CI: [2]float64{0.027, 0.035}, Level: 0.999, Pairs: 14}
	fs := []history.Function{{Profile: "allocs", Name: "x", Unit: "allocs/req", Delta: 2}, {Profile: "cpu", Name: "crypto/sha256.block", Unit: "µs/req", Delta: 9}}
	p := &planted{commits: []string{"c0", "c1"}, culprit: 1}
	cf := &confirmer{gate: p.gate, commits: p.rangeOf, budget: 3, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
	conf, _ := cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c1", Direction: Regression, Paired: night, functions: fs})
	if conf.Status != history.Confirmed || conf.Commit != "c1" || len(p.gates) != 0 || conf.Estimate != 0.031 || conf.CILevel != 0.999 || conf.Outcome != report.Regression {
		t.Errorf("one commit: %+v after gates %v; want confirmed at c1 from the night, no gate", conf, p.gates)
	}
	if len(conf.Functions) != 1 || conf.Functions[0].Name != "crypto/sha256.block" {
		t.Errorf("functions %+v; want the night's cpu function", conf.Functions)
	}

	p = &planted{commits: []string{"c0", "c1", "c2", "c3", "c4"}, culprit: 2}
	cf = &confirmer{gate: p.gate, commits: p.rangeOf, budget: 3, minStep: DefaultMinMagnitude, out: t.TempDir(), config: "perfgate", now: time.Now}
	conf, _ = cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c4", Direction: Regression, Paired: night})
	if conf.Status != history.Confirmed || conf.Commit != "c2" || len(p.gates) != 2 {
		t.Errorf("four commits: %s at %s after gates %v; want c2 after 2 bisection gates", conf.Status, conf.Commit, p.gates)
	}

	cf.commits = func(context.Context, string, string) ([]string, error) {
		return nil, errors.New("c0 is not in this shallow checkout")
	}
	conf, _ = cf.confirm(context.Background(), Series{Metric: "cpu"}, Step{Before: "c0", After: "c4", Direction: Regression, Paired: night})
	if conf.Status != history.Confirmed || conf.Commit != "c4" || !strings.Contains(conf.Reason, "not bisected: c0 is not in this shallow checkout") {
		t.Errorf("shallow: %s at %s, %q; want confirmed at c4, saying why it was not bisected", conf.Status, conf.Commit, conf.Reason)
	}
}

// everyGateRegresses is a checkout in which every paired gate shows cpu
// and allocs regressed and every step's range holds eight commits: each
// step costs its confirming gate and the whole bisection budget.
type everyGateRegresses struct{ gates [][2]string }

func (e *everyGateRegresses) Gate(_ context.Context, before, after, _ string) (*report.Report, error) {
	e.gates = append(e.gates, [2]string{before, after})
	up := func(name string) report.Metric {
		return report.Metric{Name: name, Outcome: report.Regression, Delta: 0.3, CI: [2]float64{0.25, 0.35}, CILevel: 0.99}
	}
	return &report.Report{Verdict: report.Regression, Metrics: []report.Metric{up("cpu"), up("allocs")}}, nil
}

func (e *everyGateRegresses) Commits(_ context.Context, before, after string) ([]string, error) {
	var commits []string
	for i := 1; i < 8; i++ {
		commits = append(commits, fmt.Sprintf("%s%02x", after[:38], 0xf0+i))
	}
	return append(commits, after), nil
}

// TestRunBoundsTheGatesOfTheWholeRun: the budget bounds one step's
// bisection, and a night can have many steps; MaxGates bounds the run.
// Two steps with a budget of 3 would take 8 gates: a limit of 6 lets the
// first run in full, cuts the second's bisection short (confirmed, its
// range narrowed), and a limit of 3 leaves the second step unchecked for
// a later night, with a warning.
func TestRunBoundsTheGatesOfTheWholeRun(t *testing.T) {
	for _, c := range []struct {
		maxGates, gates, unchecked int
	}{{0, 8, 0}, {6, 6, 0}, {3, 3, 1}} {
		t.Run(fmt.Sprintf("max %d", c.maxGates), func(t *testing.T) {
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(5, 6))
			var records []any
			for i := 0; i < 24; i++ {
				e := syntheticEntry(i, 8, "0000000000a1", rng)
				if i >= 16 {
					s := e.Metrics["cpu"]
					s.Median *= 1.3
					e.Metrics["cpu"] = s
				}
				records = append(records, e)
			}
			if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
				t.Fatal(err)
			}
			checkout := &everyGateRegresses{}
			tr, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: t.TempDir(), Stderr: io.Discard, Checkout: checkout,
				Settings: Settings{Alpha: DefaultAlpha, MinMagnitude: DefaultMinMagnitude, MinSegment: DefaultMinSegment, Budget: 3, MaxGates: c.maxGates}})
			if err != nil {
				t.Fatal(err)
			}
			steps, unchecked := 0, 0
			for _, s := range tr.Series {
				for _, st := range s.Steps {
					steps++
					if st.Confirmation == nil {
						unchecked++
					}
				}
			}
			counted := 0
			for _, s := range tr.Series {
				for _, st := range s.Steps {
					if st.Confirmation != nil {
						counted += st.Confirmation.Gates
					}
				}
			}
			if counted != c.gates {
				t.Errorf("the confirmations count %d gates; %d ran", counted, len(checkout.gates))
			}
			if steps != 2 || len(checkout.gates) != c.gates || unchecked != c.unchecked {
				t.Errorf("%d steps, %d gates, %d unchecked; want 2 steps, %d gates, %d unchecked (warnings %q)", steps, len(checkout.gates), unchecked, c.gates, c.unchecked, tr.Warnings)
			}
			warned := strings.Contains(strings.Join(tr.Warnings, "\n"), "reached its limit of 3 paired gates: 1 step(s) are left unchecked")
			if warned != (c.unchecked > 0) {
				t.Errorf("warnings %q; want the limit named exactly when a step is left unchecked", tr.Warnings)
			}
		})
	}
}
