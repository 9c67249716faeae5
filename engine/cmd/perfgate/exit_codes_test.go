package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/session"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// errorKinds are the errors a gate can end with, in the column order of
// TestExitCode's table.
var errorKinds = []struct {
	name string
	err  error
}{
	{"none", nil},
	{"config", &session.ConfigError{Err: errors.New("perfgate.yml:3: load.rate: must be more than 0")}},
	{"config wrapped", fmt.Errorf("resolve base: %w", &session.ConfigError{Err: errors.New("unknown revision")})},
	{"config joined with a write error", errors.Join(&session.ConfigError{Err: errors.New("bad")}, errors.New("write report.json: disk full"))},
	{"build", &build.Error{Label: "head", Command: "go build", Err: errors.New("exit status 1")}},
	{"interrupted", context.Canceled},
	{"start failure", &experiment.StartFailure{Side: "head", Err: errors.New("did not start")}},
	{"gave up", &experiment.GaveUp{Side: "base", Reason: "crashed"}},
	{"infrastructure", errors.New("read counters at window start: no such process")},
	{"option", session.CheckLabel("")},
	{"target config", &target.ConfigError{Err: errors.New("target kind: the kind command is not installed")}},
}

func TestExitCode(t *testing.T) {
	// One row per verdict, one column per error kind above. A
	// configuration error always wins; a pass with any error is not a pass.
	tests := []struct {
		verdict string
		codes   [11]int
	}{
		//                  none  cfg  cfg-w cfg-j build intr start gave infra option target
		{report.Pass, [11]int{0, 2, 2, 2, 3, 3, 3, 3, 3, 2, 2}},
		{report.Improvement, [11]int{0, 2, 2, 2, 3, 3, 3, 3, 3, 2, 2}},
		{report.Inconclusive, [11]int{0, 2, 2, 2, 3, 3, 3, 3, 3, 2, 2}},
		{report.Regression, [11]int{1, 2, 2, 2, 1, 1, 1, 1, 1, 2, 2}},
		{report.Invalid, [11]int{4, 2, 2, 2, 4, 4, 4, 4, 4, 2, 2}},
		{report.Error, [11]int{3, 2, 2, 2, 3, 3, 3, 3, 3, 2, 2}},
		{"", [11]int{3, 2, 2, 2, 3, 3, 3, 3, 3, 2, 2}}, // no report could be written
	}
	if len(errorKinds) != len(tests[0].codes) {
		t.Fatalf("%d error kinds, %d columns", len(errorKinds), len(tests[0].codes))
	}
	for _, tt := range tests {
		for i, kind := range errorKinds {
			if got := exitCode(tt.verdict, kind.err); got != tt.codes[i] {
				t.Errorf("exitCode(%q, %s error) = %d, want %d", tt.verdict, kind.name, got, tt.codes[i])
			}
		}
	}
}

// TestExitCodesAreTheDocumentedContract pins the numbers the README and
// the usage text promise.
func TestExitCodesAreTheDocumentedContract(t *testing.T) {
	for name, c := range map[string][2]int{
		"pass": {exitPass, 0}, "regression": {exitRegression, 1}, "config": {exitConfig, 2},
		"infra": {exitInfra, 3}, "invalid": {exitInvalid, 4},
	} {
		if c[0] != c[1] {
			t.Errorf("exit code for %s is %d, documented as %d", name, c[0], c[1])
		}
	}
}
