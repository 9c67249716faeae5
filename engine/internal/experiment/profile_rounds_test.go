package experiment

import (
	"slices"
	"testing"

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
