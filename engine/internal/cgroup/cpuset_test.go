package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/affinity"
)

func TestCPUListsRoundTrip(t *testing.T) {
	for list, cpus := range map[string][]int{
		"":          nil,
		"3":         {3},
		"0-2,5":     {0, 1, 2, 5},
		"0,2,4-7,9": {0, 2, 4, 5, 6, 7, 9},
	} {
		got, err := ParseCPUs(list)
		if err != nil || !slices.Equal(got, cpus) {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v", list, got, err, cpus)
		}
		if back := FormatCPUs(cpus); back != list {
			t.Errorf("FormatCPUs(%v) = %q, want %q", cpus, back, list)
		}
	}
	for _, bad := range []string{"a", "3-1", "1-x"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("ParseCPUs(%q) succeeded, want an error", bad)
		}
	}
}

// TestSetCPUsMovesARunningProcess narrows the cpuset of a real group
// holding a running process, found as a container's is (OfProcess), and
// checks the kernel's view of the process: it may then run only there.
func TestSetCPUsMovesARunningProcess(t *testing.T) {
	parent := "/sys/fs/cgroup/cpuset"
	cpusText, err := os.ReadFile(filepath.Join(parent, "cpuset.cpus"))
	if err != nil || os.Geteuid() != 0 {
		t.Skipf("needs root and a cgroup v1 cpuset hierarchy at %s (%v)", parent, err)
	}
	all, err := ParseCPUs(strings.TrimSpace(string(cpusText)))
	if err != nil || len(all) < 2 {
		t.Skipf("needs 2 CPUs in the root cpuset, has %q (%v)", cpusText, err)
	}
	dir := filepath.Join(parent, fmt.Sprintf("perfgate-test-cpuset-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rmdirRetry(dir) })
	mems, err := os.ReadFile(filepath.Join(parent, "cpuset.mems"))
	if err != nil {
		t.Fatal(err)
	}
	// A new v1 cpuset is empty: it takes no process until given CPUs and
	// memory nodes.
	for name, value := range map[string]string{"cpuset.cpus": string(cpusText), "cpuset.mems": string(mems)} {
		if err := writeFile(dir, name, strings.TrimSpace(value)); err != nil {
			t.Fatal(err)
		}
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	if err := writeFile(dir, "cgroup.procs", fmt.Sprint(sleep.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	g, err := OfProcess(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1:]
	if err := g.SetCPUs(last); err != nil {
		t.Fatal(err)
	}
	if got, err := affinity.OfTask(sleep.Process.Pid); err != nil || FormatCPUs(got) != FormatCPUs(last) {
		t.Errorf("the process may run on CPUs %v (%v) after SetCPUs(%v), want %v", got, err, last, last)
	}
	if err := g.SetCPUs([]int{all[len(all)-1] + 1000}); err == nil {
		t.Error("SetCPUs on a CPU the machine does not have succeeded, want an error")
	}
}

// TestSetCPUsChecksWhatTheKernelGranted uses a v2 group's files in a
// directory of its own: the effective set, not the set written, is what
// the processes get, and a v2 write beyond the parent's set is accepted
// but not granted.
func TestSetCPUsChecksWhatTheKernelGranted(t *testing.T) {
	dir := t.TempDir()
	g := &Group{Version: 2, dirs: map[string]string{"": dir}}
	if _, err := g.CPUs(); err == nil {
		t.Fatal("CPUs of a group without a cpuset controller succeeded, want an error")
	}
	for name, value := range map[string]string{"cpuset.cpus": "", "cpuset.cpus.effective": ""} {
		if err := writeFile(dir, name, value); err != nil {
			t.Fatal(err)
		}
	}
	if cpus, err := g.CPUs(); err == nil || !strings.Contains(err.Error(), "cpuset.cpus.effective is empty") {
		t.Errorf("CPUs with an empty effective set = %v, %v; want an error naming the file", cpus, err)
	}
	if err := writeFile(dir, "cpuset.cpus.effective", "2-3\n"); err != nil {
		t.Fatal(err)
	}
	if cpus, err := g.CPUs(); err != nil || !slices.Equal(cpus, []int{2, 3}) {
		t.Errorf("CPUs = %v, %v; want the effective [2 3]", cpus, err)
	}
	if err := g.SetCPUs([]int{3, 2}); err != nil {
		t.Errorf("SetCPUs to the effective set: %v", err)
	}
	if err := g.SetCPUs([]int{3}); err == nil || !strings.Contains(err.Error(), `granted CPUs "2-3"`) {
		t.Errorf("SetCPUs([3]) while the kernel grants 2-3: %v, want an error saying what was granted", err)
	}
}
