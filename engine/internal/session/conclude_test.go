package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

func valid(side string, pair int) report.Run {
	return report.Run{Side: side, Pair: pair, Valid: true}
}

func invalid(side string, pair int, reasons ...string) report.Run {
	return report.Run{Side: side, Pair: pair, InvalidReasons: reasons}
}

// allValid is pairs complete, valid pairs in the order a schedule runs them.
func allValid(pairs int) []report.Run {
	var runs []report.Run
	for p := 1; p <= pairs; p++ {
		runs = append(runs, valid(experiment.Head, p), valid(experiment.Base, p))
	}
	return runs
}

func TestVerdict(t *testing.T) {
	oom := "OOM-killed (memory limit 8Mi)"
	tests := []struct {
		name        string
		err         error
		runs        []report.Run
		pairs       int
		verdict     string
		reason      string
		reasonWants string // when reason is empty: a substring
	}{
		{
			name: "all pairs valid", runs: allValid(3), pairs: 3,
			verdict: report.Pass, reason: "3 of 3 pairs valid",
		},
		{
			name: "one pair", runs: allValid(1), pairs: 1,
			verdict: report.Pass, reason: "1 of 1 pairs valid",
		},
		{
			name: "half the pairs valid is enough", pairs: 4,
			runs:    append(allValid(2), valid("base", 3), invalid("head", 3, oom), invalid("base", 4, oom), valid("head", 4)),
			verdict: report.Pass, reason: "2 of 4 pairs valid",
		},
		{
			name: "fewer than half the pairs valid", pairs: 5,
			runs: append(allValid(2), invalid("head", 3, oom), valid("base", 3), invalid("head", 4, oom), valid("base", 4),
				valid("base", 5), invalid("head", 5, "achieved rate 400.0/s is below 99% of the target 500/s", "too few CPU samples: 3")),
			verdict: report.Invalid,
			reason: "invalid measurement: only 2 of 5 pairs have both runs valid; head: OOM-killed (memory limit 8Mi) ×2; " +
				"head: achieved rate 400.0/s is below 99% of the target 500/s ×1; head: too few CPU samples: 3 ×1",
		},
		{
			name: "two pairs need two valid", pairs: 2,
			runs:    append(allValid(1), valid("head", 2), invalid("base", 2, oom)),
			verdict: report.Invalid, reason: "invalid measurement: only 1 of 2 pairs have both runs valid; base: OOM-killed (memory limit 8Mi) ×1",
		},
		{
			name: "single pair invalid", pairs: 1, runs: []report.Run{invalid("base", 1, oom), valid("head", 1)},
			verdict: report.Invalid, reason: "invalid measurement: only 0 of 1 pairs have both runs valid; base: OOM-killed (memory limit 8Mi) ×1",
		},
		{
			name: "interrupted", err: context.Canceled, runs: allValid(1), pairs: 3,
			verdict: report.Error, reason: "interrupted: perfgate was stopped before the experiment finished; the runs measured so far are kept",
		},
		{
			name: "interrupted, wrapped", err: fmt.Errorf("measure: %w", context.Canceled), pairs: 3,
			verdict: report.Error, reasonWants: "interrupted:",
		},
		{
			name: "configuration error", err: &ConfigError{Err: errors.New(`--head "x" is not a directory`)}, pairs: 3,
			verdict: report.Error, reason: `configuration error: --head "x" is not a directory`,
		},
		{
			name: "build error", err: &build.Error{Label: "head", Command: "go build", Err: errors.New("exit status 1"), OutputTail: "undefined: x"}, pairs: 3,
			verdict: report.Error, reason: "build failed: head could not be built; see build.error",
		},
		{
			name:  "start failure",
			err:   &experiment.StartFailure{Side: "head", Err: errors.New("did not start"), Exit: target.Exit{Code: 1}},
			runs:  []report.Run{valid("base", 1), invalid("head", 1, "did not start: exited with code 1 before /healthz answered")},
			pairs: 3, verdict: report.Invalid,
			reason: "the head service could not be measured: did not start: exited with code 1 before /healthz answered",
		},
		{
			name:  "gave up",
			err:   &experiment.GaveUp{Side: "base", InARow: 3, Reason: oom},
			runs:  []report.Run{invalid("base", 1, oom), valid("head", 1), invalid("base", 2, oom), invalid("base", 3, oom)},
			pairs: 10, verdict: report.Invalid,
			reason: "invalid measurement: stopped early: 3 base runs in a row were invalid (last: OOM-killed (memory limit 8Mi))",
		},
		{
			name: "infrastructure error", err: errors.New("read counters at window start: no such process"), runs: allValid(3), pairs: 3,
			verdict: report.Error, reason: "infrastructure error: read counters at window start: no such process",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := measurementVerdict(tt.err, tt.runs, tt.pairs)
			if got != tt.verdict {
				t.Errorf("verdict %q, want %q (reason %q)", got, tt.verdict, reason)
			}
			switch {
			case tt.reason != "" && reason != tt.reason:
				t.Errorf("reason:\n%q\nwant:\n%q", reason, tt.reason)
			case tt.reasonWants != "" && !strings.Contains(reason, tt.reasonWants):
				t.Errorf("reason %q, want one containing %q", reason, tt.reasonWants)
			}
		})
	}
}

func TestValidPairs(t *testing.T) {
	tests := []struct {
		name string
		runs []report.Run
		want int
	}{
		{"none", nil, 0},
		{"all valid", allValid(4), 4},
		{"one side invalid", []report.Run{valid("base", 1), invalid("head", 1, "x"), valid("base", 2), valid("head", 2)}, 1},
		{"both sides invalid", []report.Run{invalid("base", 1, "x"), invalid("head", 1, "y")}, 0},
		{"pair cut short by an interruption", append(allValid(2), valid("head", 3)), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(verdict.ValidPairs(tt.runs)); got != tt.want {
				t.Errorf("validPairs = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestInvalidSummary(t *testing.T) {
	tests := []struct {
		name string
		runs []report.Run
		want string
	}{
		{"no invalid runs", allValid(2), ""},
		{"one reason", []report.Run{invalid("head", 1, "crashed during the run: signal SIGSEGV")}, "head: crashed during the run: signal SIGSEGV ×1"},
		{
			"same reason on both sides counted apart, in order of first appearance",
			[]report.Run{invalid("head", 1, "a"), invalid("base", 1, "a"), invalid("head", 2, "a"), valid("base", 2)},
			"head: a ×2; base: a ×1",
		},
		{
			"several reasons of one run",
			[]report.Run{invalid("base", 1, "a", "b"), invalid("base", 2, "b")},
			"base: a ×1; base: b ×2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := invalidSummary(tt.runs); got != tt.want {
				t.Errorf("invalidSummary = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrepareOut(t *testing.T) {
	tests := []struct {
		name    string
		files   []string // existing files in --out; nil: --out does not exist
		wantErr bool
	}{
		{name: "new directory"},
		{name: "empty directory", files: []string{}},
		{name: "previous results are replaced", files: []string{"report.json", "base/run-01/run.json"}},
		{name: "other files are never wiped", files: []string{"main.go"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			if tt.files != nil {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tt.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(out, f)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, f), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := prepareOut(out)
			entries, _ := os.ReadDir(out)
			if tt.wantErr {
				var ce *ConfigError
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want a configuration error", err)
				}
				if len(entries) != len(tt.files) {
					t.Errorf("--out holds %d entries after a refusal, want its %d files untouched", len(entries), len(tt.files))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Errorf("--out holds %d entries, want an empty directory", len(entries))
			}
		})
	}
}
