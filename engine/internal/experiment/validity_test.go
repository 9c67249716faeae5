package experiment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

var windowEnd = time.Date(2026, 11, 20, 12, 0, 10, 0, time.UTC)

// healthyRun passes every validity rule of the default configuration
// (500 req/s, 99% rate, 1% errors, 20 CPU samples, 90% generator CPU).
func healthyRun() report.Run {
	after := windowEnd.Add(300 * time.Millisecond)
	return report.Run{
		Side:     Head,
		Load:     report.Load{Requests: 5000, StatusCodes: map[string]int{"200": 5000}, PacerLagP99: time.Millisecond},
		Figures:  report.Figures{Requests: 5000, AchievedRate: 500, ErrorRate: 0, GeneratorCPURatio: 0.2},
		Counters: report.Counters{End: report.CountersAt{At: windowEnd}},
		Profiles: []report.Profile{
			{Name: "cpu", File: "cpu.pb.gz", Samples: 150, Finished: after},
			{Name: "allocs", File: "allocs.pb.gz", Samples: 9000, Finished: after},
			{Name: "heap", File: "heap.pb.gz", Samples: 40, Finished: after.Add(100 * time.Millisecond)},
		},
	}
}

func TestInvalidReasons(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*config.Config)
		run     func(*report.Run)
		crashed bool
		want    []string
		// failed: the service itself failed (evidence against its side),
		// not only the measurement.
		failed bool
	}{
		{name: "healthy run"},
		{
			name: "OOM stands alone",
			run: func(r *report.Run) {
				r.Exit = report.Exit{ExitedOnItsOwn: true, Signal: "SIGKILL", OOMKilled: true}
				r.Figures.AchievedRate, r.Figures.ErrorRate = 10, 0.9
			},
			crashed: true,
			want:    []string{"OOM-killed (memory limit 256Mi)"},
			failed:  true,
		},
		{
			name: "crash by signal stands alone",
			run: func(r *report.Run) {
				r.Exit = report.Exit{ExitedOnItsOwn: true, Signal: "SIGSEGV"}
				r.Figures.AchievedRate, r.Figures.ErrorRate = 10, 0.9
			},
			crashed: true,
			want:    []string{"crashed during the run: signal SIGSEGV"},
			failed:  true,
		},
		{
			name:    "crash by exit code",
			run:     func(r *report.Run) { r.Exit = report.Exit{ExitedOnItsOwn: true, Code: 2} },
			crashed: true,
			want:    []string{"crashed during the run: exit code 2"},
			failed:  true,
		},
		{
			name:   "rate below 99%",
			run:    func(r *report.Run) { r.Figures.AchievedRate = 494.9 },
			want:   []string{"achieved rate 494.9/s is below 99% of the target 500/s"},
			failed: true,
		},
		{
			name: "rate at exactly 99%",
			run:  func(r *report.Run) { r.Figures.AchievedRate = 495 },
		},
		{
			name:   "rate rule follows the configuration",
			cfg:    func(c *config.Config) { c.Validity.MinRate = 0.5; c.Load.Rate = 100 },
			run:    func(r *report.Run) { r.Figures.AchievedRate = 49 },
			want:   []string{"achieved rate 49.0/s is below 50% of the target 100/s"},
			failed: true,
		},
		{
			name:   "a profile round's raised rate reads as set",
			cfg:    func(c *config.Config) { c.Load.Rate = 100 * 4.4 },
			run:    func(r *report.Run) { r.Figures.AchievedRate = 433.5 },
			want:   []string{"achieved rate 433.5/s is below 99% of the target 440/s"},
			failed: true,
		},
		{
			name: "error rate above allowed",
			run: func(r *report.Run) {
				r.Figures.ErrorRate = 0.03
				r.Load.StatusCodes = map[string]int{"200": 4850, "503": 100, "500": 25, "0": 25}
				r.Load.Errors = []string{`Get "http://127.0.0.1:1/x": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, "500 Internal Server Error"}
			},
			want:   []string{`error rate 3.00% is above the allowed 1% (status 0 ×25, status 500 ×25, status 503 ×100, e.g. Get "http://127.0.0.1:1/x": context deadline exceeded (Client.Timeout exceeded while awaiting headers))`},
			failed: true,
		},
		{
			name: "long error message is cut",
			run: func(r *report.Run) {
				r.Figures.ErrorRate = 1
				r.Load.StatusCodes = map[string]int{"0": 5000}
				r.Load.Errors = []string{strings.Repeat("x", 200)}
			},
			want:   []string{"error rate 100.00% is above the allowed 1% (status 0 ×5000, e.g. " + strings.Repeat("x", 120) + "…)"},
			failed: true,
		},
		{
			name: "error rate at exactly the limit",
			run:  func(r *report.Run) { r.Figures.ErrorRate = 0.01 },
		},
		{
			name: "generator saturated by CPU",
			run:  func(r *report.Run) { r.Figures.GeneratorCPURatio = 0.97 },
			want: []string{"load generator saturated: it used 97% of its CPUs (limit 90%)"},
		},
		{
			name: "generator saturated by pacer lag",
			run:  func(r *report.Run) { r.Load.PacerLagP99 = 81234 * time.Microsecond },
			want: []string{"load generator saturated: requests left up to 81.2ms behind schedule (p99)"},
		},
		{
			name: "generator CPU reason covers the lag it causes",
			run:  func(r *report.Run) { r.Figures.GeneratorCPURatio = 0.95; r.Load.PacerLagP99 = time.Second },
			want: []string{"load generator saturated: it used 95% of its CPUs (limit 90%)"},
		},
		{
			name: "pacer lag at exactly the limit",
			run:  func(r *report.Run) { r.Load.PacerLagP99 = maxPacerLag },
		},
		{
			name: "too few CPU samples",
			run:  func(r *report.Run) { r.Profiles[0].Samples = 12 },
			want: []string{"too few CPU samples: 12 in the profile, 20 needed; lengthen load.duration or raise load.rate"},
		},
		{
			name: "CPU sample check off",
			cfg:  func(c *config.Config) { c.Validity.MinCPUSamples = 0 },
			run:  func(r *report.Run) { r.Profiles[0].Samples = 0 },
		},
		{
			name: "failed CPU profile is not counted as too few samples",
			run: func(r *report.Run) {
				r.Profiles[0] = report.Profile{Name: "cpu", Error: "GET /profile: 500", Finished: windowEnd}
			},
		},
		{
			name: "profile finished before the end counters",
			run:  func(r *report.Run) { r.Profiles[1].Finished = windowEnd.Add(-time.Millisecond) },
			want: []string{"the allocs profile ended before the window's counters were read, so its own work was counted; the service answered too slowly after the window"},
		},
		{
			name: "one reason for several early profiles",
			run: func(r *report.Run) {
				r.Profiles[0].Finished = windowEnd.Add(-time.Second)
				r.Profiles[1].Finished = windowEnd.Add(-time.Second)
			},
			want: []string{"the cpu profile ended before the window's counters were read, so its own work was counted; the service answered too slowly after the window"},
		},
		{
			name: "snapshots are taken after the window anyway",
			run:  func(r *report.Run) { r.Profiles[2].Finished = windowEnd.Add(-time.Second) },
		},
		{
			name: "failed windowed profile has no window to spoil",
			run: func(r *report.Run) {
				r.Profiles[1] = report.Profile{Name: "allocs", Error: "timeout", Finished: windowEnd.Add(-time.Second)}
			},
		},
		{
			name: "every reason at once, in order",
			run: func(r *report.Run) {
				r.Figures.AchievedRate, r.Figures.ErrorRate, r.Load.PacerLagP99 = 400, 0.5, time.Second
				r.Load.StatusCodes = map[string]int{"200": 1, "502": 1}
				r.Profiles[0].Samples, r.Profiles[0].Finished = 3, windowEnd.Add(-time.Second)
			},
			want: []string{
				"achieved rate 400.0/s is below 99% of the target 500/s",
				"error rate 50.00% is above the allowed 1% (status 502 ×1)",
				"load generator saturated: requests left up to 1s behind schedule (p99)",
				"the cpu profile ended before the window's counters were read, so its own work was counted; the service answered too slowly after the window",
				"too few CPU samples: 3 in the profile, 20 needed; lengthen load.duration or raise load.rate",
			},
			failed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			if tt.cfg != nil {
				tt.cfg(cfg)
			}
			r := healthyRun()
			if tt.run != nil {
				tt.run(&r)
			}
			got, failed := invalidReasons(cfg, r, tt.crashed)
			if !slices.Equal(got, tt.want) {
				t.Errorf("reasons:\n%q\nwant:\n%q", got, tt.want)
			}
			if failed != tt.failed {
				t.Errorf("service failed: %v, want %v", failed, tt.failed)
			}
		})
	}
}
