package cgroup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOOMWatchV1SeesAKillWhenTheGroupGoesAtOnce: a process over its
// memory limit is killed and its group removed the moment it is reaped,
// sooner than Docker removes a container's, and the watch still says it
// was an OOM kill. cgroup v1 only.
func TestOOMWatchV1SeesAKillWhenTheGroupGoesAtOnce(t *testing.T) {
	g, w := v1GroupWatched(t)
	// tail buffers a line that never ends: memory grows until the kill.
	cmd := exec.Command("sh", "-c", joinAll(g)+" exec tail /dev/zero")
	if err := cmd.Start(); err != nil {
		t.Fatal(errors.Join(err, g.Remove()))
	}
	werr := cmd.Wait()
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if w.Kills() < 1 {
		t.Fatalf("the hog ended with %v; the watch saw %d OOM kills, want at least 1", werr, w.Kills())
	}
}

// TestOOMWatchV1SeesNoKillWithoutOOM: a process that stays under its
// limit ends, its group goes, the watch ends on its own and saw nothing.
func TestOOMWatchV1SeesNoKillWithoutOOM(t *testing.T) {
	g, w := v1GroupWatched(t)
	cmd := exec.Command("sh", "-c", joinAll(g)+" exec sleep 0.3")
	if err := cmd.Run(); err != nil {
		t.Fatal(errors.Join(err, g.Remove()))
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	case <-time.After(60 * time.Second): // a hang guard: generous, since a loaded machine is slow (issue 58)
		t.Error("the watch did not end within 60 s of its group's removal")
	}
	w.Stop()
	if w.Kills() != 0 {
		t.Fatalf("the watch saw %d OOM kills of a process that stayed under its limit", w.Kills())
	}
}

func v1GroupWatched(t *testing.T) (*Group, *OOMWatch) {
	t.Helper()
	return groupWatched(t, 1, "this host has cgroup v2; the v1 watch needs v1")
}

// groupWatched is a real 16 MiB group of cgroup version with an OOM watch
// on it, both ended when the test is; on another version the test is
// skipped, saying why.
func groupWatched(t *testing.T, version int, skip string) (*Group, *OOMWatch) {
	t.Helper()
	h := realHierarchy(t)
	if h.Version != version {
		t.Skip(skip)
	}
	g, err := h.Create(Limits{CPUMillicores: 1000, MemoryBytes: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.WatchOOMKills()
	if err != nil {
		t.Fatal(errors.Join(err, g.Remove()))
	}
	if w == nil {
		t.Fatal(errors.Join(fmt.Errorf("no watch on cgroup v%d", version), g.Remove()))
	}
	t.Cleanup(func() {
		w.Stop()
		_ = g.Remove()
	})
	return g, w
}

// TestOOMWatchV1TellsAnOOMEventFromTheRemoval drives the v1 watch's loop
// with an eventfd the test signals as the kernel would and a fake group
// directory, in each order an OOM event, the group's going and the
// removal's own signal can come in.
func TestOOMWatchV1TellsAnOOMEventFromTheRemoval(t *testing.T) {
	for _, tc := range []struct {
		name string
		// steps: "oom" signals once while the group is there and waits
		// until the watch has read the group after it; "late oom" signals
		// once after the group went and waits until the watch took it;
		// "oom+removal" signals twice at once; "removal" signals once;
		// "gone" removes the group's directory.
		steps []string
		want  int64
	}{
		{"the group goes, then its removal is signalled", []string{"gone", "removal"}, 0},
		{"an OOM event, then the group goes before its kill shows", []string{"oom", "gone", "removal"}, 1},
		{"the watch runs late: the group is gone when it takes the OOM event", []string{"gone", "late oom", "removal"}, 1},
		{"the watch runs late: both signals are in when it looks", []string{"gone", "oom+removal"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if slices.Contains(tc.steps, "late oom") {
				// Long enough that a loaded machine cannot make the
				// test's removal signal come too late.
				defer func(d time.Duration) { removalWait = d }(removalWait)
				removalWait = 5 * time.Second
			}
			dir := filepath.Join(t.TempDir(), "group")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			control := filepath.Join(dir, "memory.oom_control")
			if err := os.WriteFile(control, []byte("oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			read := opens(t, control)
			efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(efd)
			// The watch closes its descriptor when it ends; the test keeps
			// its own on the same eventfd.
			watched, err := unix.FcntlInt(uintptr(efd), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			w := &OOMWatch{stop: make(chan struct{}), done: make(chan struct{})}
			go w.runV1(watched, dir)
			defer w.Stop()
			// The watch reads the group once, then waits on the eventfd
			// for pollEvery.
			read()
			for _, step := range tc.steps {
				switch step {
				case "oom":
					signal(t, efd, 1)
					read()
				case "late oom":
					signal(t, efd, 1)
					taken(t, efd)
				case "oom+removal":
					signal(t, efd, 2)
				case "removal":
					signal(t, efd, 1)
				case "gone":
					if err := os.RemoveAll(dir); err != nil {
						t.Fatal(err)
					}
				}
			}
			select {
			case <-w.done:
			case <-time.After(60 * time.Second): // a hang guard (issue 58)
				t.Fatal("the watch did not end within 60 s of its group being gone")
			}
			if w.Kills() != tc.want {
				t.Fatalf("the watch saw %d kills, want %d", w.Kills(), tc.want)
			}
		})
	}
}

// opens returns a function that waits until path has been opened once
// more, by inotify.
func opens(t *testing.T, path string) func() {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 5000); err != nil || n == 0 {
			t.Fatalf("the watch did not read %s (%v)", path, err)
		}
		buf := make([]byte, unix.SizeofInotifyEvent+unix.PathMax+1)
		if _, err := unix.Read(fd, buf); err != nil {
			t.Fatal(err)
		}
	}
}

// signal adds n to efd's count, as the kernel's eventfd_signal does.
func signal(t *testing.T, efd int, n uint64) {
	t.Helper()
	if _, err := unix.Write(efd, binary.NativeEndian.AppendUint64(nil, n)); err != nil {
		t.Fatal(err)
	}
}

// taken waits until the watch has read efd's count.
func taken(t *testing.T, efd int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		fds := []unix.PollFd{{Fd: int32(efd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err == nil && n == 0 {
			return
		}
	}
	t.Fatal("the watch did not read the eventfd")
}
