package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A member of another PID namespace is listed as 0 in cgroup.procs; Pids
// must never hand it (or any non-positive number) to a kill.
func TestPidsLeavesOutOtherNamespacesZero(t *testing.T) {
	for _, tc := range []struct {
		procs string
		want  []int
	}{
		{"0\n", nil},
		{"0\n4194305\n0\n", []int{4194305}},
		{"-1\n17\n17\n", []int{17}},
		{"", nil},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(tc.procs), 0o644); err != nil {
			t.Fatal(err)
		}
		g := &Group{Version: 2, dirs: map[string]string{"": dir}}
		if got := g.Pids(); !slices.Equal(got, tc.want) {
			t.Errorf("cgroup.procs %q: Pids() = %v, want %v", tc.procs, got, tc.want)
		}
	}
}

// killPid(0) would SIGKILL the caller's own process group; it must refuse.
// The check runs in a child with its own process group, so a missing guard
// kills only the child.
func TestKillPidRefusesProcessGroups(t *testing.T) {
	if os.Getenv("PERFGATE_KILLPID_CHILD") == "1" {
		if err := killPid(0); err == nil {
			os.Exit(3)
		}
		time.Sleep(100 * time.Millisecond) // a signal to the group lands by now
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillPidRefusesProcessGroups$")
	cmd.Env = append(os.Environ(), "PERFGATE_KILLPID_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("killPid(0) in a child: %v (want a refusal, not a signal to its process group)\n%s", err, out)
	}
}
