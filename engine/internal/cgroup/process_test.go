package cgroup

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
)

func TestOfProcessParsesContainerGroups(t *testing.T) {
	g, err := ofProcess("testdata/mountinfo-v1", "testdata/container-v1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cpu":     "/sys/fs/cgroup/cpu,cpuacct/docker/0123abcd",
		"cpuacct": "/sys/fs/cgroup/cpu,cpuacct/docker/0123abcd",
		// The memory mount's root is /docker/abc: paths are below it.
		"memory": "/sys/fs/cgroup/memory/inner/docker/0123abcd",
	}
	if g.Version != 1 || !sameDirs(g.dirs, want) {
		t.Errorf("v1 group = %d %v, want %v", g.Version, g.dirs, want)
	}
	g, err = ofProcess("testdata/mountinfo-v2", "testdata/container-v2")
	if err != nil {
		t.Fatal(err)
	}
	if g.Version != 2 || g.dirs[""] != "/sys/fs/cgroup/system.slice/docker-0123abcd.scope" {
		t.Errorf("v2 group = %d %v", g.Version, g.dirs)
	}
}

func sameDirs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOfProcessReadsARealGroup finds a process's group the way the docker
// and kubernetes targets find a container's: same directories, same
// limits, live counters, and it cannot be removed through it.
func TestOfProcessReadsARealGroup(t *testing.T) {
	h := realHierarchy(t)
	owned, err := h.Create(Limits{CPUMillicores: 500, MemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := owned.Remove(); err != nil {
			t.Error(err)
		}
	})
	// The shell says when it has joined every hierarchy, then becomes sleep.
	cmd := exec.Command("sh", "-c", joinAll(owned)+" echo joined; exec sleep 30")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "joined\n" {
		t.Fatalf("the shell did not join the group: %q, %v", line, err)
	}
	found, err := OfProcess(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(found.ProcsFiles(), owned.ProcsFiles()) {
		t.Errorf("found %v, want %v", found.ProcsFiles(), owned.ProcsFiles())
	}
	if limits, err := found.Limits(); err != nil || limits.CPUMillicores != 500 || limits.MemoryBytes != 32<<20 {
		t.Errorf("limits %+v (%v), want 500m and 32Mi", limits, err)
	}
	if s, err := found.Stats(); err != nil || s.MemoryCurrentBytes == 0 {
		t.Errorf("stats %+v (%v), want live counters", s, err)
	}
	if err := found.Remove(); !errors.Is(err, ErrNotOwned) {
		t.Errorf("Remove of a found group = %v, want ErrNotOwned", err)
	}
	if _, err := os.Stat(owned.ProcsFiles()[0]); err != nil {
		t.Errorf("the group is gone after a refused Remove: %v", err)
	}
}
