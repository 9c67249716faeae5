package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlagErrors: a bad command line of perfgate run is a usage error
// (exit 2) whose message names the flag, the value and what to give
// instead, before anything is built or written.
func TestRunFlagErrors(t *testing.T) {
	cfg := writeConfig(t, decisiveExperiment)
	notADir := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", cfg}, "--label is required: name what is measured, e.g. --label main"},
		{[]string{"--config", cfg, "--label", "my branch"}, `--label "my branch" is not a valid label; use 1 to 100 letters, digits and . _ / -`},
		{[]string{"--config", cfg, "--label", strings.Repeat("x", 101)}, "is not a valid label"},
		{[]string{"--config", cfg, "--label", "main", "--target", "lambda"}, `--target "lambda" is not a target; use one of local, docker, kind, kubernetes`},
		{[]string{"--config", cfg, "--label", "main", "extra"}, `unexpected argument "extra"`},
		{[]string{"--config", cfg, "--label", "main", "--src", notADir}, `--src "` + notADir + `" is not a directory; pass the checkout of the service to measure`},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"--config", cfg, "--label", "main", "--binary", os.Args[0], "--pair-with", "last"}, "--binary with --pair-with: the paired base is built from its revision"},
		{[]string{"--config", cfg, "--label", "main", "--binary", notADir}, "--binary " + notADir + " is not an executable file"},
		{[]string{"--config", cfg, "--label", "main", "--artifact-name", "a b"}, `--artifact-name "a b" is not an artifact name; use letters, digits, '.', '_' and '-'`},
		{[]string{"--config", cfg, "--label", "main", "--run-url", "http://x/runs/1"}, `--run-url "http://x/runs/1" is not an https:// URL`},
		{[]string{"--config", cfg, "--label", "main", "--artifact-id", "-4"}, "--artifact-id -4 is not an ID"},
		{[]string{"--config", cfg, "--label", "main", "--run-id", "x"}, `invalid value "x" for flag -run-id`},
		{[]string{"--config", cfg, "--label", "main", "--commit", "abc1234"}, `--commit "abc1234" is not a full commit id; pass all 40 (or 64) hex digits`},
		{[]string{"--config", cfg, "--label", "main", "--commit", "--output=/tmp/x"}, `--commit "--output=/tmp/x" is not a full commit id`},
	} {
		out := filepath.Join(t.TempDir(), "results")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"run", "--out", out}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("run %v: wrote %s before refusing", tc.args, out)
		}
	}
}
