package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/owner"
)

// TestSweepRemovesGoneOwnersGroupsOnly plants real cgroups next to a live
// group of this process: one of a perfgate that is gone, which `perfgate
// sweep` removes, and then one it cannot remove (it holds a child group),
// which makes it exit 1 naming it. Docker, kind and Kubernetes are absent
// (PATH and KUBECONFIG point nowhere) and are skipped, each saying why.
func TestSweepRemovesGoneOwnersGroupsOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	h, err := cgroup.Detect()
	if err != nil {
		t.Skipf("no cgroup hierarchy: %v", err)
	}
	live, err := h.Create(cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := live.Remove(); err != nil {
			t.Error(err)
		}
	})
	var parents []string // one per hierarchy, where the live group is
	for _, f := range live.ProcsFiles() {
		parents = append(parents, filepath.Dir(filepath.Dir(f)))
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	gone := owner.Owner{Host: owner.Host(), PID: exited.Process.Pid}
	plant := func(name string) []string {
		var dirs []string
		for _, p := range parents {
			dir := filepath.Join(p, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(dir) })
			dirs = append(dirs, dir)
		}
		return dirs
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	sweep := func() (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"sweep"}, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	dead := plant("perfgate-" + gone.String() + "-1")
	code, stdout, stderr := sweep()
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing\n%s", code, stderr, stdout)
	}
	for _, dir := range dead {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s, of a gone perfgate, survived the sweep\n%s", dir, stdout)
		}
		if !strings.Contains(stdout, "cgroups: removed cgroup "+dir+"\n") {
			t.Errorf("output does not list %s as removed:\n%s", dir, stdout)
		}
	}
	for _, f := range live.ProcsFiles() {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the live group went: %v", err)
		}
	}
	for _, want := range []string{
		"docker: skipped, the docker command is not on PATH",
		"kind: skipped, the kind command is not on PATH",
		"kubernetes: skipped, no cluster to look in",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	stuck := plant("perfgate-" + gone.String() + "-2")
	child := filepath.Join(stuck[0], "child")
	if err := os.Mkdir(child, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(child) }) // runs before stuck's own removal
	code, stdout, stderr = sweep()
	if code != exitSweepLeftovers || !strings.Contains(stderr, "cgroups: FAILED: could not remove cgroup "+stuck[0]) {
		t.Errorf("exit %d, stderr %q; want %d naming %s\n%s", code, stderr, exitSweepLeftovers, stuck[0], stdout)
	}
}
