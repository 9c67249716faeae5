package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestGateFlagErrors: a bad command line is a usage error (exit 2) whose
// message names the flag, the value and what to give instead.
func TestGateFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--base", "main", "--target", "lambda"}, `--target "lambda" is not a target; use one of local, docker, kind, kubernetes`},
		{[]string{"--head", "."}, "--base is required"},
		{[]string{"--base", "main", "--seed", "x1"}, `--seed "x1" is not an unsigned integer`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"gate"}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("gate %v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestGateTargetOverridesConfig: --target replaces the config's target
// before anything is built (here one this version cannot run yet).
func TestGateTargetOverridesConfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"gate", "--config", writeConfig(t, decisiveExperiment), "--base", t.TempDir(), "--head", t.TempDir(), "--target", "kind", "--out", t.TempDir()}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String()+stdout.String(), `target: "kind"`) {
		t.Errorf("exit %d, output %q; want the config error naming target kind", code, stderr.String()+stdout.String())
	}
}
