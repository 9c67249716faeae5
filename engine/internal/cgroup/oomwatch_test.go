package cgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestOOMWatchSeesAKillAfterTheGroupIsGone: a process over its memory
// limit is killed, its group removed at once (as Docker's systemd driver
// does), and the watch still says it was an OOM kill. cgroup v2 only: it
// runs in the runner-like VM (scripts/vm/suite.sh).
func TestOOMWatchSeesAKillAfterTheGroupIsGone(t *testing.T) {
	g, w := groupWatched(t, 2, "this test is the v2 watch's (the v1 watch's are in oomwatch_v1_test.go); this host has v1")
	// tail buffers a line that never ends: memory grows until the kill.
	cmd := exec.Command("sh", "-c", joinAll(g)+" exec tail /dev/zero")
	if err := cmd.Start(); err != nil {
		t.Fatal(errors.Join(err, g.Remove()))
	}
	werr := cmd.Wait()
	// The watch's own reading (this group sits under the root, which has
	// no memory.events for the parent count); Docker's race with the
	// group's removal is the docker target's OOM test in the VM.
	deadline := time.Now().Add(5 * time.Second)
	for w.Kills() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if w.Kills() != 1 {
		t.Fatalf("the hog ended with %v; the watch saw %d OOM kills, want 1", werr, w.Kills())
	}
}

// TestOOMWatchCountsTheParentsKillsWhenTheGroupIsGone: a group removed
// before the watch read it still shows the kill through its parent.
func TestOOMWatchCountsTheParentsKillsWhenTheGroupIsGone(t *testing.T) {
	parent, child := t.TempDir(), ""
	child = filepath.Join(parent, "child")
	write := func(dir string, kills int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "memory.events"), []byte(fmt.Sprintf("low 0\nhigh 0\nmax 3\noom 1\noom_kill %d\n", kills)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(parent, 4)
	write(child, 0)
	g := &Group{Version: 2, dirs: map[string]string{"": child}}
	w, err := g.WatchOOMKills()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if w.Kills() != 0 {
		t.Fatalf("kills before any: %d", w.Kills())
	}
	// The kill lands and the group goes at once, as with Docker's systemd
	// driver; only the parent's count is left to tell.
	if err := os.RemoveAll(child); err != nil {
		t.Fatal(err)
	}
	write(parent, 5)
	if w.Kills() != 1 {
		t.Fatalf("the watch saw %d kills, want the parent's 1 new one", w.Kills())
	}
}

func TestNilOOMWatchIsUsable(t *testing.T) {
	var w *OOMWatch
	w.Stop()
	if w.Kills() != 0 {
		t.Fatal("a nil watch saw kills")
	}
}
