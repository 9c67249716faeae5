package render

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// duetReport is a real A/A duet of this project's example service, as
// scripts/goldens.sh records it (its "pass" scenario): a report of the
// engine as it is, so that what the page and the terminal show of it is
// what a gate today would show.
func duetReport(t *testing.T) *report.Report {
	t.Helper()
	return realReport(t, "pass")
}

// pairsReport is a report of n rounds whose head costs ratios[i] times
// base's CPU per request, all runs valid unless invalid names a round.
func pairsReport(experiment string, ratios []float64, invalid map[int]string) *report.Report {
	cfg := config.Default()
	cfg.Pairs, cfg.Load.Duration = len(ratios), config.Duration(10*time.Second)
	if experiment != "" {
		cfg.Experiment = experiment
	}
	rep := &report.Report{Schema: 1, Verdict: report.Pass, Experiment: experiment, Config: cfg.Report()}
	for i, ratio := range ratios {
		for _, side := range []string{"base", "head"} {
			cpu := 300.0
			if side == "head" {
				cpu *= ratio
			}
			run := report.Run{Side: side, Pair: i + 1, Valid: true, Figures: report.Figures{CPUMicrosPerRequest: cpu, CPUSource: "cgroup"}}
			if why, bad := invalid[i+1]; bad && side == "head" {
				run.Valid, run.InvalidReasons = false, []string{why}
			}
			rep.Runs = append(rep.Runs, run)
		}
	}
	return rep
}

func TestMethod(t *testing.T) {
	detectable := func(rep *report.Report, d float64) *report.Report {
		rep.Metrics = []report.Metric{{Name: "cpu", Unit: "µs/req", Scale: "relative", Threshold: 0.01, Pairs: len(rep.Runs) / 2, Detectable: ptr(d), Gates: true}}
		return rep
	}
	for _, tt := range []struct {
		name string
		rep  *report.Report
		want string
	}{
		{"a real A/A duet", duetReport(t),
			"Measured as a duet: 14 rounds of 5s (base and head at the same time on the same CPUs), per-round spread 0.7%, could detect ≥ 2.0% (1.7% to 2.1%) CPU/request."},
		{"duet", detectable(pairsReport("duet", []float64{1.01, 1.02, 1.00, 1.01}, nil), 0.012),
			"Measured as a duet: 4 rounds of 10s (base and head at the same time on the same CPUs), per-round spread 0.8%, could detect ≥ 1.2% CPU/request."},
		{"duet with an invalid round replaced", detectable(pairsReport("duet", []float64{1.01, 1.02, 1.00, 1.01, 1.01}, map[int]string{2: "OOM-killed"}), 0.012),
			"Measured as a duet: 4 rounds of 10s (base and head at the same time on the same CPUs; 1 invalid round not counted), per-round spread 0.5%, could detect ≥ 1.2% CPU/request."},
		{"sequential", detectable(pairsReport("sequential", []float64{1.05, 0.97, 1.00}, nil), 0.08),
			"Measured as 3 pairs of 10s run one after the other, per-pair spread 4.0%, could detect ≥ 8.0% CPU/request."},
		{"a target that cannot duet", func() *report.Report {
			rep := detectable(pairsReport("sequential", []float64{1.05, 0.97, 1.00}, nil), 0.08)
			rep.Config.Experiment = "duet"
			rep.Warnings = []string{"experiment: duet needs base and head on the same CPUs, driven by one load generator; the kind target ..."}
			return rep
		}(), "Measured as 3 pairs of 10s run one after the other (a duet was asked for, but the target cannot run one: see the warnings), per-pair spread 4.0%, could detect ≥ 8.0% CPU/request."},
		{"no valid round", pairsReport("duet", []float64{1, 1}, map[int]string{1: "x", 2: "y"}),
			"Measured as a duet in rounds of 10s (base and head at the same time on the same CPUs): no round had both sides valid (2 invalid rounds)."},
		{"no valid pair, no window", func() *report.Report {
			rep := pairsReport("sequential", []float64{1}, map[int]string{1: "x"})
			rep.Config = report.Config{}
			return rep
		}(), "Measured as pairs run one after the other: no pair had both runs valid (1 invalid pair)."},
		{"one valid round: no spread", pairsReport("duet", []float64{1}, nil),
			"Measured as a duet: 1 round of 10s (base and head at the same time on the same CPUs)."},
		{"no detectable change", func() *report.Report {
			rep := detectable(pairsReport("duet", []float64{1.01, 1.02, 1.00}, nil), 0)
			rep.Metrics[0].Detectable = nil
			return rep
		}(), "Measured as a duet: 3 rounds of 10s (base and head at the same time on the same CPUs), per-round spread 1.0%; 3 rounds are too few to detect any change of CPU/request at alpha 0.01."},
		{"an old report: no experiment, runs without duet", detectable(pairsReport("", []float64{1.05, 0.97, 1.00}, nil), 0.08),
			"Measured as 3 pairs of 10s run one after the other, per-pair spread 4.0%, could detect ≥ 8.0% CPU/request."},
		{"a recording", &report.Report{Mode: report.ModeRecord, Experiment: "record", Runs: []report.Run{{Side: "head", Pair: 1, Valid: true}}}, ""},
		{"nothing measured", &report.Report{Experiment: "duet"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Method(tt.rep); got != tt.want {
				t.Errorf("Method\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestMethodCountsReplacedRounds(t *testing.T) {
	rep := pairsReport("duet", []float64{1.01, 1.02, 1.00, 1.01, 1.01}, map[int]string{2: "OOM-killed"})
	rep.Config.Pairs = 4 // four valid rounds were wanted and measured
	if got := Method(rep); !strings.Contains(got, "(base and head at the same time on the same CPUs; 1 invalid round replaced)") {
		t.Errorf("Method = %q", got)
	}
}

func TestLatencyNote(t *testing.T) {
	rep := duetReport(t)
	if got := LatencyNote(rep); got != latencyInDuet {
		t.Errorf("a duet with latency quantiles: %q", got)
	}
	rep.Experiment = "sequential"
	if got := LatencyNote(rep); got != "" {
		t.Errorf("a sequential experiment: %q", got)
	}
	if got := LatencyNote(&report.Report{Experiment: "duet"}); got != "" {
		t.Errorf("a duet that shows no latency: %q", got)
	}
}

// A duet's profile rounds are not compared: the sentence and the round
// charts count the gating rounds alone.
func TestMethodLeavesOutProfileRounds(t *testing.T) {
	rep := pairsReport("duet", []float64{1.01, 1.02, 1.00, 1.01, 0.80}, nil)
	for i := range rep.Runs {
		rep.Runs[i].ProfileRound = rep.Runs[i].Pair == 5
	}
	rep.Metrics = []report.Metric{{Name: "cpu", Unit: "µs/req", Scale: "relative", Threshold: 0.01, Pairs: 4, Detectable: ptr(0.012), Gates: true}}
	want := "Measured as a duet: 4 rounds of 10s (base and head at the same time on the same CPUs), per-round spread 0.8%, could detect ≥ 1.2% CPU/request."
	if got := Method(rep); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
