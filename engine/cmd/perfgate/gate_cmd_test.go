package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateFlagErrors: a bad command line is a usage error (exit 2) whose
// message names the flag, the value and what to give instead.
func TestGateFlagErrors(t *testing.T) {
	cfg := writeConfig(t, decisiveExperiment)
	missing := filepath.Join(t.TempDir(), "missing")
	notResults := t.TempDir()
	if err := os.WriteFile(filepath.Join(notResults, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--base", "main", "--target", "lambda"}, `--target "lambda" is not a target; use one of local, docker, kind, kubernetes`},
		{[]string{"--head", "."}, `give exactly one of --base (a git revision such as origin/main; got "") and --base-dir (a directory; got "")`},
		{[]string{"--base", "main", "--base-dir", "old"}, `give exactly one of --base (a git revision such as origin/main; got "main") and --base-dir (a directory; got "old")`},
		{[]string{"--base", "main", "--seed", "x1"}, `--seed "x1" is not an unsigned integer`},
		{[]string{"--config", cfg, "--base-dir", ".", "--head", missing, "--out", missing}, `perfgate: --head "` + missing + `" is not a directory; pass the checkout of the pull request's head`},
		{[]string{"--config", cfg, "--base-dir", ".", "--head", ".", "--out", notResults}, `perfgate: --out "` + notResults + `" exists and is not a perfgate results directory; pass a new or empty directory`},
		{[]string{"--base", "main", "--base-binary", "server"}, `give both --base-binary and --head-binary (got "server" and ""), or neither`},
		{[]string{"--config", writeConfig(t, relinkedExperiment), "--base-dir", ".", "--head", ".", "--base-binary", os.Args[0], "--head-binary", os.Args[0]}, "perfgate: --base-binary and --head-binary: a prebuilt binary cannot be relinked with a layout of its own per round, which layout: random (perfgate.yml's default) needs; write layout: build"},
		{[]string{"--config", cfg, "--base-dir", ".", "--head", ".", "--base-binary", missing, "--head-binary", os.Args[0]}, "perfgate: --base-binary " + missing + " is not an executable file"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"gate"}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("gate %v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestGateTargetOverridesConfig: --target replaces the config's target
// (local): the gate goes to Docker, here at a socket nobody serves, and
// fails there as an infrastructure error (exit 3) that says how to start
// Docker.
func TestGateTargetOverridesConfig(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("the docker command is not installed")
	}
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "nobody.sock"))
	g := runGateCommand(t, writeConfig(t, decisiveExperiment), exampleService(t), exampleService(t), "--target", "docker")
	if g.code != 3 || g.report == nil || g.report.Verdict != "error" || g.report.Environment.Target != "docker" {
		t.Fatalf("exit %d; want 3 with verdict error from the docker target", g.code)
	}
	for _, want := range []string{"no Docker engine answers at unix://", "systemctl start docker", "DOCKER_HOST"} {
		if !strings.Contains(g.stderr, want) || !strings.Contains(g.report.Reason, want) {
			t.Errorf("stderr and reason should say %q; reason %q", want, g.report.Reason)
		}
	}
}

// TestCompareWithoutReport: compare on a directory with no report.json is
// a usage error that names --out.
func TestCompareWithoutReport(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"compare", "--out", missing}, &stdout, &stderr)
	want := `perfgate: --out "` + missing + `" has no report.json; pass the results directory of a perfgate gate or run` + "\n"
	if code != 2 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, stderr.String(), want)
	}
}
