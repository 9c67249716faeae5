package cgroup

import (
	"os/exec"
	"testing"
	"time"
)

// TestOOMWatchSeesAKillAfterTheGroupIsGone: a process over its memory
// limit is killed, its group removed at once (as Docker's systemd driver
// does), and the watch still says it was an OOM kill. cgroup v2 only: it
// runs in the runner-like VM (scripts/vm/suite.sh).
func TestOOMWatchSeesAKillAfterTheGroupIsGone(t *testing.T) {
	h := realHierarchy(t)
	if h.Version != 2 {
		t.Skip("the OOM watch is for cgroup v2; this host has v1")
	}
	g, err := h.Create(Limits{CPUMillicores: 1000, MemoryBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.WatchOOMKills()
	if err != nil {
		g.Remove()
		t.Fatal(err)
	}
	defer w.Stop()
	// tail buffers a line that never ends: memory grows until the kill.
	cmd := exec.Command("sh", "-c", joinAll(g)+" exec tail /dev/zero")
	if err := cmd.Start(); err != nil {
		g.Remove()
		t.Fatal(err)
	}
	werr := cmd.Wait()
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for w.Kills() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if w.Kills() != 1 {
		t.Fatalf("the hog ended with %v; the watch saw %d OOM kills, want 1", werr, w.Kills())
	}
}

func TestNilOOMWatchIsUsable(t *testing.T) {
	var w *OOMWatch
	w.Stop()
	if w.Kills() != 0 {
		t.Fatal("a nil watch saw kills")
	}
}
