package gate

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// errorKinds are the errors a gate can end with, in the column order of
// TestExitCode's table.
var errorKinds = []struct {
	name string
	err  error
}{
	{"none", nil},
	{"config", &ConfigError{Err: errors.New("perfgate.yml:3: load.rate: ...")}},
	{"config wrapped", fmt.Errorf("resolve base: %w", &ConfigError{Err: errors.New("unknown revision")})},
	{"config joined with a write error", errors.Join(&ConfigError{Err: errors.New("bad")}, errors.New("write report.json: disk full"))},
	{"build", &build.Error{Label: "head", Command: "go build", Err: errors.New("exit status 1")}},
	{"interrupted", context.Canceled},
	{"start failure", &experiment.StartFailure{Side: "head", Err: errors.New("did not start")}},
	{"gave up", &experiment.GaveUp{Side: "base", Reason: "crashed"}},
	{"infrastructure", errors.New("read counters at window start: no such process")},
}

func TestExitCode(t *testing.T) {
	// One row per verdict, one column per error kind above. A
	// configuration error always wins; a pass with any error is not a pass.
	tests := []struct {
		verdict string
		codes   [9]int
	}{
		//                 none  cfg  cfg-w cfg-j build intr start gave infra
		{report.Pass, [9]int{0, 2, 2, 2, 3, 3, 3, 3, 3}},
		{report.Improvement, [9]int{0, 2, 2, 2, 3, 3, 3, 3, 3}},
		{report.Inconclusive, [9]int{0, 2, 2, 2, 3, 3, 3, 3, 3}},
		{report.Regression, [9]int{1, 2, 2, 2, 1, 1, 1, 1, 1}},
		{report.Invalid, [9]int{4, 2, 2, 2, 4, 4, 4, 4, 4}},
		{report.Error, [9]int{3, 2, 2, 2, 3, 3, 3, 3, 3}},
		{"", [9]int{3, 2, 2, 2, 3, 3, 3, 3, 3}}, // no report could be written
	}
	if len(errorKinds) != len(tests[0].codes) {
		t.Fatalf("%d error kinds, %d columns", len(errorKinds), len(tests[0].codes))
	}
	for _, tt := range tests {
		for i, kind := range errorKinds {
			if got := ExitCode(tt.verdict, kind.err); got != tt.codes[i] {
				t.Errorf("ExitCode(%q, %s error) = %d, want %d", tt.verdict, kind.name, got, tt.codes[i])
			}
		}
	}
}

// TestExitCodesAreTheDocumentedContract pins the numbers the README and
// the usage text promise.
func TestExitCodesAreTheDocumentedContract(t *testing.T) {
	for name, c := range map[string][2]int{
		"pass": {ExitPass, 0}, "regression": {ExitRegression, 1}, "config": {ExitConfig, 2},
		"infra": {ExitInfra, 3}, "invalid": {ExitInvalid, 4},
	} {
		if c[0] != c[1] {
			t.Errorf("exit code for %s is %d, documented as %d", name, c[0], c[1])
		}
	}
}
