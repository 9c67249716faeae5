package experiment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestProfilePlanRaisesTheLoadWithinTheLimits(t *testing.T) {
	cfg := config.Default()
	cfg.Load.Rate = 300
	rounds := func(busy, generator float64) []report.Run {
		var runs []report.Run
		for range 3 {
			for _, side := range []string{Base, Head} {
				runs = append(runs, report.Run{Side: side, Valid: true, Duet: &report.Duet{SharedCPUBusy: busy},
					Figures: report.Figures{GeneratorCPURatio: generator}})
			}
		}
		return runs
	}
	for _, tc := range []struct {
		name            string
		busy, generator float64
		factor          float64
	}{
		// 0.6 of max_shared_cpu (0.75) over 0.15 busy: 3x.
		{"shared CPUs idle", 0.15, 0.1, 3},
		// The generator's limit (0.90) binds first: 0.54/0.3.
		{"generator busier", 0.15, 0.3, 1.8},
		{"capped", 0.01, 0.01, maxProfileLoad},
		{"already busy: never lower", 0.6, 0.1, 1},
	} {
		c, factor := profilePlan(cfg, rounds(tc.busy, tc.generator))
		if factor != tc.factor || c.Load.Rate != 300*tc.factor || cfg.Load.Rate != 300 || c.Load.Duration != profileWindows*cfg.Load.Duration {
			t.Errorf("%s: factor %g, rate %g (gating config's %g); want %g", tc.name, factor, c.Load.Rate, cfg.Load.Rate, tc.factor)
		}
	}
	if _, factor := profilePlan(cfg, nil); factor != 1 {
		t.Errorf("no gating rounds: factor %g, want 1", factor)
	}
}

// TestAProfileRoundThatSaturatedTheGeneratorLowersTheNext: after a
// profile round whose generator fell behind (pacer lag, or its CPU past
// the limit), the next runs at half the raise, rounded down to a tenth,
// never below 1; a round that kept up changes nothing.
func TestAProfileRoundThatSaturatedTheGeneratorLowersTheNext(t *testing.T) {
	gating := config.Default()
	gating.Load.Rate = 100
	unit := func(lag time.Duration, generator float64) []report.Run {
		return []report.Run{
			{Side: Base, Load: report.Load{PacerLagP99: lag}, Figures: report.Figures{GeneratorCPURatio: generator}},
			{Side: Head, Load: report.Load{PacerLagP99: lag}, Figures: report.Figures{GeneratorCPURatio: generator}},
		}
	}
	for _, tc := range []struct {
		name       string
		factor     float64
		unit       []report.Run
		want       float64
		noteSaying string
	}{
		{"lagged", 3.2, unit(92*time.Millisecond, 0.3), 2.1, "requests left up to 92ms behind schedule (p99) at 3.2x the load; the next at 2.1x"},
		{"generator CPU", 2, unit(time.Millisecond, 0.95), 1.5, "it used 95% of its CPUs (limit 90%) at 2x the load; the next at 1.5x"},
		{"kept up", 3.2, unit(10*time.Millisecond, 0.3), 3.2, ""},
		{"at the gating load already", 1, unit(92*time.Millisecond, 0.3), 1, ""},
		{"never below 1", 1.1, unit(92*time.Millisecond, 0.3), 1, "the next at 1x"},
	} {
		next, factor, note := nextProfileLoad(gating, tc.factor, tc.unit)
		if factor != tc.want || next.Load.Rate != 100*tc.want || next.Load.Duration != profileWindows*gating.Load.Duration ||
			(tc.noteSaying == "") != (note == "") || !strings.Contains(note, tc.noteSaying) {
			t.Errorf("%s: factor %g, rate %g, note %q; want %g and a note saying %q", tc.name, factor, next.Load.Rate, note, tc.want, tc.noteSaying)
		}
	}
}

func TestProfileEnvAddsMemProfileRate(t *testing.T) {
	env := func(entries ...string) func(config.Listen) []string {
		return func(config.Listen) []string { return slices.Clone(entries) }
	}
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, []string{"GODEBUG=memprofilerate=16384"}},
		{[]string{"A=1", "GODEBUG=http2client=0"}, []string{"A=1", "GODEBUG=http2client=0,memprofilerate=16384"}},
		// The service's own choice stands.
		{[]string{"GODEBUG=memprofilerate=1"}, []string{"GODEBUG=memprofilerate=1"}},
	} {
		if got := profileEnv(env(tc.in...))(config.Listen{Addr: "127.0.0.1:1", Port: 1}); !slices.Equal(got, tc.want) {
			t.Errorf("profileEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
