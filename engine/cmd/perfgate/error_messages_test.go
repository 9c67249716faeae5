package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/session"
)

// TestOptionMessagesNameTheFlag: each option gate refuses is said as the
// flag that set it, with the value and what to pass instead.
func TestOptionMessagesNameTheFlag(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	_, headErr := session.Gate(t.Context(), session.GateOptions{ConfigPath: writeConfig(t, decisiveExperiment), Head: missing, Targets: targets})
	_, compareErr := session.Recompute(session.RecomputeOptions{Out: missing})
	for _, tt := range []struct {
		err  error
		want string
	}{
		{headErr, `--head "` + missing + `" is not a directory; pass the checkout of the pull request's head`},
		{compareErr, `--out "` + missing + `" has no report.json; pass the results directory of a perfgate gate or run`},
		{session.CheckLabel(""), "--label is required: name what is measured, e.g. --label main or --label $(git rev-parse --short HEAD)"},
		{session.CheckLabel("a b"), `--label "a b" is not a valid label; use 1 to 100 letters, digits and . _ / - (a branch name like main or a short commit SHA)`},
		{&session.OptionError{Option: session.OptionOut, Value: "results", Problem: session.NotResults}, `--out "results" exists and is not a perfgate results directory; pass a new or empty directory`},
		{&session.OptionError{Option: session.OptionSrc, Value: "src", Problem: session.NotADirectory}, `--src "src" is not a directory; pass the checkout of the service to measure`},
		// Context around an option error is kept, in gate's own words.
		{fmt.Errorf("prepare: %w", session.CheckLabel("")), "prepare: label is required"},
		{errors.New("disk full"), "disk full"},
	} {
		if got := message(tt.err); got != tt.want {
			t.Errorf("message(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestOptionMessagesStartWithTheFlag: a message names the option as the
// flag the user typed.
func TestOptionMessagesStartWithTheFlag(t *testing.T) {
	for pair, format := range optionMessages {
		if flag := "--" + string(pair.option); !strings.HasPrefix(format, flag) {
			t.Errorf("the message for %v does not start with its flag %s: %q", pair, flag, format)
		}
	}
}
