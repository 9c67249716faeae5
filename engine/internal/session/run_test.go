package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestCheckLabel: a label is a branch name or a short SHA; anything else
// is an OptionError (and a configuration error) naming the label.
func TestCheckLabel(t *testing.T) {
	for label, want := range map[string]Problem{
		"main":                   -1,
		"release/1.2_rc-3":       -1,
		"0123456789ab":           -1,
		strings.Repeat("a", 100): -1,
		"":                       Missing,
		"feature branch":         NotALabel,
		"main;rm":                NotALabel,
		strings.Repeat("a", 101): NotALabel,
		"<script>":               NotALabel,
		"ünïcode":                NotALabel,
	} {
		err := CheckLabel(label)
		if want == -1 {
			if err != nil {
				t.Errorf("CheckLabel(%q) = %v, want nil", label, err)
			}
			continue
		}
		var ce *ConfigError
		var oe *OptionError
		if !errors.As(err, &ce) || !errors.As(err, &oe) || *oe != (OptionError{Option: OptionLabel, Value: label, Problem: want}) {
			t.Errorf("CheckLabel(%q) = %#v, want a configuration error with problem %d", label, err, want)
		}
	}
}

func headRuns(validity ...bool) []report.Run {
	var runs []report.Run
	for i, ok := range validity {
		if ok {
			runs = append(runs, valid(experiment.Head, i+1))
		} else {
			runs = append(runs, invalid(experiment.Head, i+1, "OOM-killed (memory limit 8Mi)"))
		}
	}
	return runs
}

func TestRecordingVerdict(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		runs    []report.Run
		pairs   int
		verdict string
		reason  string
	}{
		{
			name: "all runs valid", runs: headRuns(true, true, true), pairs: 3,
			verdict: report.Pass, reason: "recorded 3 valid runs of main; nothing compared (mode record)",
		},
		{
			name: "half the runs valid is enough", runs: headRuns(true, false, true, false), pairs: 4,
			verdict: report.Pass, reason: "recorded 2 valid runs of main (2 invalid: OOM-killed (memory limit 8Mi) ×2); nothing compared (mode record)",
		},
		{
			name: "fewer than half valid", runs: headRuns(true, false, false, true, false), pairs: 5,
			verdict: report.Invalid, reason: "invalid measurement: only 2 of 5 runs of main are valid; OOM-killed (memory limit 8Mi) ×3",
		},
		{
			name: "one valid run of two is too few", runs: headRuns(true, false), pairs: 2,
			verdict: report.Invalid, reason: "invalid measurement: only 1 of 2 runs of main are valid; OOM-killed (memory limit 8Mi) ×1",
		},
		{
			name: "one run asked, one valid", runs: headRuns(true), pairs: 1,
			verdict: report.Pass, reason: "recorded 1 valid runs of main; nothing compared (mode record)",
		},
		{
			name: "start failure as in a gate", pairs: 3,
			err:     &experiment.StartFailure{Side: "head", Err: errors.New("did not start"), Exit: target.Exit{Code: 1}},
			runs:    []report.Run{invalid("head", 1, "did not start: exited with code 1 before /healthz answered")},
			verdict: report.Invalid, reason: "the head service could not be measured: did not start: exited with code 1 before /healthz answered",
		},
		{
			name: "interrupted as in a gate", err: context.Canceled, runs: headRuns(true), pairs: 3,
			verdict: report.Error, reason: "interrupted: perfgate was stopped before the experiment finished; the runs measured so far are kept",
		},
		{
			name: "infrastructure error as in a gate", err: errors.New("read counters at window start: no such process"), runs: headRuns(true, true), pairs: 2,
			verdict: report.Error, reason: "infrastructure error: read counters at window start: no such process",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := recordingVerdict(tt.err, tt.runs, tt.pairs, "main")
			if got != tt.verdict || reason != tt.reason {
				t.Errorf("recordingVerdict = %s, %q\nwant %s, %q", got, reason, tt.verdict, tt.reason)
			}
			if tt.err != nil {
				if gateVerdict, gateReason := measurementVerdict(tt.err, tt.runs, tt.pairs); gateVerdict != got || gateReason != reason {
					t.Errorf("a failed recording says %s, %q; a gate says %s, %q", got, reason, gateVerdict, gateReason)
				}
			}
		})
	}
}

// TestCompareRecomputesARecording: compare on a recording's results
// concludes it as a recording: medians of head, pass, no base files, a
// report.md that says recorded.
func TestCompareRecomputesARecording(t *testing.T) {
	out := t.TempDir()
	cfg := config.Default()
	cfg.Service.Package = "./cmd/server"
	cfg.Pairs = 2
	rep := &report.Report{Schema: report.Schema, Verdict: report.Error, Reason: "running", Mode: report.ModeRecord, Label: "main", Config: cfg.Report()}
	for pair := 1; pair <= 2; pair++ {
		allocs := 90.0
		r := report.Run{Side: experiment.Head, Pair: pair, Order: pair, Dir: fmt.Sprintf("head/run-%02d", pair), Valid: true,
			Figures: report.Figures{Requests: 400, CPUSource: "cgroup", CPUMicrosPerRequest: 300 + float64(pair), AllocsPerRequest: &allocs, LatencyP50Ms: 1, LatencyP99Ms: 3}}
		if err := os.MkdirAll(filepath.Join(out, r.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		rep.Runs = append(rep.Runs, r)
	}
	if err := results.WriteReport(out, rep); err != nil {
		t.Fatal(err)
	}
	got, err := Recompute(RecomputeOptions{Out: out, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != report.Pass || got.Reason != "recorded 2 valid runs of main; nothing compared (mode record)" || len(got.Metrics) != 0 || got.Counts != nil {
		t.Errorf("verdict %s, %q, %d metrics, counts %v; want a pass with nothing compared", got.Verdict, got.Reason, len(got.Metrics), got.Counts)
	}
	if len(got.Summary) == 0 || got.Summary[0].Name != "cpu" || got.Summary[0].Head != 301.5 || got.Summary[0].HeadRuns != 2 || got.Summary[0].BaseRuns != 0 {
		t.Errorf("summary %+v, want head medians over 2 runs", got.Summary)
	}
	if _, err := os.Stat(filepath.Join(out, "bench", "base.txt")); err == nil {
		t.Error("a recording wrote bench/base.txt")
	}
	if _, err := os.Stat(filepath.Join(out, "bench", "head.txt")); err != nil {
		t.Errorf("no bench/head.txt: %v", err)
	}
	if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(md), "perfgate: recorded main") {
		t.Errorf("report.md does not say recorded: %v\n%s", err, md)
	}
}
