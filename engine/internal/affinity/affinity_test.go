package affinity

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
)

// TestStartGivesChildrenTheCPUsFromBeforePin pins perfgate to one CPU and
// starts a shell that starts another command, as go build starts the
// linker: both get the CPUs perfgate had before, while every thread of
// perfgate stays pinned. Unpin then restores perfgate.
func TestStartGivesChildrenTheCPUsFromBeforePin(t *testing.T) {
	before, err := Allowed()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 2 {
		t.Skip("needs at least two CPUs")
	}
	pinned := before[:1]
	if err := Pin(pinned); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Unpin() })
	for range 3 {
		// The shell prints its own CPUs, then its child's (grep's).
		cmd := exec.Command("sh", "-c", `grep Cpus_allowed_list /proc/$$/status; grep Cpus_allowed_list /proc/self/status`)
		var out strings.Builder
		cmd.Stdout = &out
		if err := Run(cmd); err != nil {
			t.Fatal(err)
		}
		want := "Cpus_allowed_list:\t" + cgroup.FormatCPUs(before)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || lines[0] != want || lines[1] != want {
			t.Fatalf("a child and its child of a pinned perfgate run on\n%s\nwant both %q", out.String(), want)
		}
		everyThreadOn(t, pinned)
	}
	if err := Unpin(); err != nil {
		t.Fatal(err)
	}
	everyThreadOn(t, before)
	cmd := exec.Command("sh", "-c", `grep Cpus_allowed_list /proc/self/status`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "Cpus_allowed_list:\t"+cgroup.FormatCPUs(before); got != want {
		t.Errorf("after Unpin a child runs on %q, want %q", got, want)
	}
}

func TestPinTwiceKeepsTheFirstAffinityForUnpin(t *testing.T) {
	before, err := Allowed()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 2 {
		t.Skip("needs at least two CPUs")
	}
	t.Cleanup(func() { _ = Unpin() })
	for _, cpus := range [][]int{before[:1], before[1:2]} {
		if err := Pin(cpus); err != nil {
			t.Fatal(err)
		}
		everyThreadOn(t, cpus)
	}
	if err := Unpin(); err != nil {
		t.Fatal(err)
	}
	everyThreadOn(t, before)
	if err := Unpin(); err != nil {
		t.Errorf("a second Unpin: %v, want nothing done", err)
	}
}

// everyThreadOn checks the affinity of every thread of this process.
func everyThreadOn(t *testing.T, cpus []int) {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		got, err := OfTask(tid)
		if err != nil {
			continue // exited since the listing
		}
		if !slices.Equal(got, cpus) {
			t.Errorf("thread %d (pid %d) runs on CPUs %v, want %v", tid, os.Getpid(), got, cpus)
		}
	}
}
