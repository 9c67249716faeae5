package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

func TestDetectParsesMountinfo(t *testing.T) {
	h, err := detect("testdata/mountinfo-v1", "testdata/self-v1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cpu":     "/sys/fs/cgroup/cpu,cpuacct/user.slice",
		"cpuacct": "/sys/fs/cgroup/cpu,cpuacct/user.slice",
		// The mount's root is the container's own cgroup, so the path is
		// taken relative to it.
		"memory": "/sys/fs/cgroup/memory/inner",
	}
	if h.Version != 1 {
		t.Fatalf("version = %d, want 1", h.Version)
	}
	for c, p := range want {
		if h.parents[c] != p {
			t.Errorf("parent[%s] = %q, want %q", c, h.parents[c], p)
		}
	}
	if got := len(h.uniqueParents()); got != 2 {
		t.Errorf("unique parents = %d, want 2 (cpu and cpuacct are co-mounted)", got)
	}
}

func TestDetectV2NeedsControllers(t *testing.T) {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		t.Skip("host is cgroup v2; the fixture test would read the real root")
	}
	// The fixture points at a v2 mount at /sys/fs/cgroup, which on this
	// (v1) host has no cgroup.controllers: detection must say so.
	if _, err := detect("testdata/mountinfo-v2", "testdata/self-v1"); err == nil {
		t.Fatal("want an error when /sys/fs/cgroup/cgroup.controllers is missing")
	}
}

// TestCreateLimitsStatsRemove exercises a real group on this host.
func TestCreateLimitsStatsRemove(t *testing.T) {
	h := realHierarchy(t)
	g, err := h.Create(Limits{CPUMillicores: 250, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Error(err)
		}
	})
	got, err := g.Limits()
	if err != nil {
		t.Fatal(err)
	}
	if got.CPUMillicores != 250 || got.MemoryBytes != 64<<20 || got.CPUPeriodMicros != 100_000 {
		t.Fatalf("limits read back = %+v", got)
	}

	// A busy loop inside the group must be throttled to a quarter core.
	cmd := exec.Command("sh", "-c", joinAll(g)+" while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1 * time.Second)
	s, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Pids()) != 1 {
		t.Errorf("pids in group = %v, want the shell", g.Pids())
	}
	if s.ThrottledPeriods == 0 || s.CPUUsageNanos == 0 {
		t.Errorf("busy loop under 250m shows no throttling: %+v", s)
	}
	if s.CPUUsageNanos > int64(500*time.Millisecond) {
		t.Errorf("busy loop used %v of CPU in 1s under a 250m quota", time.Duration(s.CPUUsageNanos))
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, f := range g.ProcsFiles() {
		if _, err := os.Stat(filepath.Dir(f)); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Remove", filepath.Dir(f))
		}
	}
}

// joinAll is shell that moves the shell itself into every directory of g.
func joinAll(g *Group) string {
	s := ""
	for _, f := range g.ProcsFiles() {
		s += "echo $$ > " + f + "; "
	}
	return s
}

func TestSweepRemovesGroupsOfDeadProcesses(t *testing.T) {
	h := realHierarchy(t)
	// pid 2^22+1 is above the kernel's pid_max limit, so it is never alive.
	dead := "perfgate-" + owner.Owner{Host: owner.Host(), PID: 4194305}.String() + "-1"
	for _, parent := range h.uniqueParents() {
		if err := os.Mkdir(filepath.Join(parent, dead), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	swept, err := h.Sweep()
	if err != nil || len(swept.Removed) == 0 || len(swept.Failed) != 0 {
		t.Fatalf("sweep: %+v, %v; want the dead group removed", swept, err)
	}
	for _, name := range h.Existing() {
		if filepath.Base(name) == dead {
			t.Errorf("%s survived the sweep", name)
		}
	}
}

// TestSweepTouchesOnlyItsOwnHostsDeadGroups: a runner sharing the cgroup
// tree from another container (another host identity) keeps its groups
// even when their PIDs mean nothing, or something dead, here.
func TestSweepTouchesOnlyItsOwnHostsDeadGroups(t *testing.T) {
	parent := t.TempDir()
	h := &Hierarchy{Version: 2, parents: map[string]string{"": parent}}
	judge := owner.Judge{Host: "a1b2c3d4e5f6", Alive: func(pid int) bool { return pid == 100 }}
	names := map[string]bool{ // name: swept
		"perfgate-a1b2c3d4e5f6-200-1": true,  // ours, dead
		"perfgate-a1b2c3d4e5f6-100-2": false, // ours, alive
		"perfgate-0f0f0f0f0f0f-200-1": false, // another host's
		"perfgate-123456789012-200-1": false, // another host's, all digits
		"perfgate-200-1":              false, // no host identity (an older perfgate)
		"perfgate-a1b2c3d4e5f6-200-x": false, // not a group name of ours
		"perfgate-k8s":                false,
	}
	for name := range names {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	result, err := h.sweep(judge)
	if err != nil || len(result.Failed) != 0 {
		t.Fatalf("sweep: %+v, %v", result, err)
	}
	for name, swept := range names {
		_, err := os.Stat(filepath.Join(parent, name))
		if gone := os.IsNotExist(err); gone != swept {
			t.Errorf("%s: removed %v, want %v (sweep removed %v)", name, gone, swept, result.Removed)
		}
	}
}

func TestGroupNameCarriesHostAndPID(t *testing.T) {
	h := realHierarchy(t)
	g, err := h.Create(Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Error(err)
		}
	})
	rest, _ := strings.CutPrefix(g.Name(), namePrefix)
	if o, seq, ok := owner.Cut(rest); !ok || o != owner.Self() || seq == "" {
		t.Errorf("group %q does not name this host and PID (%s)", g.Name(), owner.Self())
	}
}

func realHierarchy(t *testing.T) *Hierarchy {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	h, err := Detect()
	if err != nil {
		t.Skip("no usable cgroup hierarchy: ", err)
	}
	return h
}
