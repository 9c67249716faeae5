package kubernetes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestImageLoadFromConfigRunsAsTheInvoker: kubernetes.image_load comes
// from perfgate.yml, which a pull request can change, so under sudo
// (SUDO_UID and SUDO_GID stand in for it; nobody exists everywhere) it runs
// as the invoker and can read the archive it is given; perfgate's own
// loader (the kind target's) runs as perfgate. The stand-in loader prints
// who it is and whether it read the archive, then fails so that ensure
// returns its output.
func TestImageLoadFromConfigRunsAsTheInvoker(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	binary := targettest.BuildSvc(t)
	load := []string{"sh", "-c", `echo "uid=$(id -u) groups=$(id -G)"; head -c 1 "$1" >/dev/null && echo "read the" "archive"; exit 1`, "sh", "{archive}"}
	for _, c := range []struct {
		asInvoker bool
		want      []string
	}{
		{true, []string{"uid=65534 groups=65534", "read the archive"}},
		{false, []string{"uid=0 ", "read the archive"}},
	} {
		m, err := newImages("perfgate", load, "perfgate-test-run", c.asInvoker)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(m.workDir) })
		_, err = m.ensure(context.Background(), "svc", binary)
		if err == nil {
			t.Fatal("the failing loader succeeded")
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("asInvoker %v: the loader said %v; want %q", c.asInvoker, err, w)
			}
		}
	}
}

// TestImagesLoadOnceWhileADuetStartsBothSides: a duet starts both sides at
// once, and in an A/A gate they are the same binary at two paths. The
// image is loaded once, the archive is never written twice at once, and a
// different binary is loaded beside it. The stand-in loader records every
// image it is given and checks its archive is whole (tar reads it).
func TestImagesLoadOnceWhileADuetStartsBothSides(t *testing.T) {
	dir := t.TempDir()
	binary := targettest.BuildSvc(t)
	copyOf := func(name string, extra []byte) string {
		b, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append(b, extra...), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, head, other := copyOf("base", nil), copyOf("head", nil), copyOf("other", []byte{0})
	log := filepath.Join(dir, "loads.log")
	load := []string{"sh", "-c", `sleep 0.3; tar -tf "$1" >/dev/null && echo "$2" >> "$3"`, "sh", "{archive}", "{image}", log}
	m, err := newImages("perfgate", load, "perfgate-test-run", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(m.workDir) })
	refs := make([]string, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, b := range []string{base, head, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			refs[i], errs[i] = m.ensure(context.Background(), "svc", b)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ensure %d: %v", i, err)
		}
	}
	if refs[0] != refs[1] || refs[0] == refs[2] {
		t.Errorf("references %q: want the same binary's two paths to share one and the other binary its own", refs)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	loads := strings.Fields(string(got))
	slices.Sort(loads)
	want := []string{refs[0], refs[2]}
	slices.Sort(want)
	if !slices.Equal(loads, want) {
		t.Errorf("the loader was given %q; want each image once: %q", loads, want)
	}
	// Loaded once, the image is not loaded again for the next round.
	if _, err := m.ensure(context.Background(), "svc", base); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(log); len(again) != len(got) {
		t.Errorf("a loaded image was loaded again: %q", again)
	}
}

// TestAStartWaitingOnACancelledPreloadLoadsItself: a start that finds the
// same image being loaded by a preload that is then cancelled (the
// experiment dropped it) loads the image itself instead of failing with
// the preload's cancellation.
func TestAStartWaitingOnACancelledPreloadLoadsItself(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "loads.log")
	load := []string{"sh", "-c", `sleep 0.5; echo "$1" >> "$2"`, "sh", "{image}", log}
	m, err := newImages("perfgate", load, "perfgate-test-run", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(m.workDir) })
	binary := targettest.BuildSvc(t)
	preload, cancel := context.WithCancel(context.Background())
	preloaded := make(chan error, 1)
	go func() {
		_, err := m.ensure(preload, "svc", binary)
		preloaded <- err
	}()
	// The preload's load is under way once its archive is being written
	// or its command runs; the start then waits on it.
	for {
		m.mu.Lock()
		n := len(m.loaded)
		m.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	started := make(chan error, 1)
	go func() {
		_, err := m.ensure(context.Background(), "svc", binary)
		started <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-preloaded; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled preload returned %v, want its cancellation", err)
	}
	if err := <-started; err != nil {
		t.Fatalf("the start that waited on the cancelled preload failed: %v", err)
	}
	got, err := os.ReadFile(log)
	if err != nil || len(strings.Fields(string(got))) != 1 {
		t.Errorf("loads logged %q (%v): want the start's own load, once", got, err)
	}
}
