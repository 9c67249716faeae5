package cgroup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// oomSettle is how long the v1 watch follows an OOM event for its kill.
// The kernel signals the event before the OOM killer picks and kills a
// victim (mem_cgroup_oom: memcg1_oom_prepare signals, then
// mem_cgroup_out_of_memory kills), so oom_kill read at the signal is
// often still the old count (the kill came 2 or 3 ms later on the
// development VM), and the group can go as soon as its last process is
// reaped.
const oomSettle = 100 * time.Millisecond

// removalWait is how long the v1 watch waits for the signal of a group's
// removal when a signal found the group already gone. The kernel signals
// the removal from a workqueue once the group is offline, an RCU grace
// period or so after its directory went (15 to 20 ms on the development
// VM). A variable for tests.
var removalWait = 100 * time.Millisecond

// watchOOMKillsV1 starts an OOMWatch on the group's v1 memory controller
// directory. Neither of the v2 watch's ways works here: the kernel tells
// inotify watchers nothing of memory.oom_control, and a child's oom_kill
// is not hierarchical in v1 (the parent's memory.oom_control stays at 0
// after a child's kill). What v1 has is the notification API
// (Documentation/admin-guide/cgroup-v1/memory.rst, "OOM Control"): an
// eventfd registered through cgroup.event_control, which the kernel
// signals on each OOM event in the group and once more when the group is
// removed. containerd watches v1 OOM kills the same way.
func (g *Group) watchOOMKillsV1() (*OOMWatch, error) {
	dir := g.dirs["memory"]
	if dir == "" {
		return nil, errors.New("cgroup: the group has no v1 memory directory to watch")
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("eventfd for %s: %w", dir, err)
	}
	if err := registerOOMEvent(dir, efd); errors.Is(err, unix.EOPNOTSUPP) {
		// A PREEMPT_RT kernel refuses cgroup.event_control: the watch
		// then only reads oom_kill every pollEvery.
		unix.Close(efd)
		efd = -1
	} else if err != nil {
		unix.Close(efd)
		return nil, err
	}
	w := &OOMWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go w.runV1(efd, dir)
	return w, nil
}

// registerOOMEvent asks the kernel to signal efd on the OOM events of the
// group in dir. The kernel looks both descriptors up in the writer's table
// and keeps only what it needs, so memory.oom_control may be closed after.
func registerOOMEvent(dir string, efd int) error {
	control, err := os.Open(filepath.Join(dir, "memory.oom_control"))
	if err != nil {
		return err
	}
	defer control.Close()
	return writeFile(dir, "cgroup.event_control", fmt.Sprintf("%d %d", efd, control.Fd()))
}

// runV1 reads oom_kill at each signal of efd (-1: none) and every
// pollEvery besides, until Stop or the group's removal. Closing efd, when
// the group outlives the watch, makes the kernel drop the registration.
func (w *OOMWatch) runV1(efd int, dir string) {
	defer close(w.done)
	if efd >= 0 {
		defer unix.Close(efd)
	}
	for {
		if !w.readV1(dir) {
			// Gone between two polls without a signal: no OOM event.
			return
		}
		select {
		case <-w.stop:
			return
		default:
		}
		if !signalled(efd, pollEvery) {
			continue
		}
		n := readSignals(efd)
		before := w.kills.Load()
		if !w.readV1(dir) {
			// The removal is signalled only once the group's directory
			// is gone, and only once, so this is it or an OOM event the
			// group did not outlive (the watch ran late): two signals,
			// or one more soon, tell it was an OOM event.
			if n >= 2 || signalled(efd, removalWait) {
				w.kills.Store(max(w.kills.Load(), before+1))
			}
			return
		}
		// The group was still there after the signal: an OOM event.
		if w.settleV1(dir, before) {
			return
		}
	}
}

// signalled waits up to timeout for efd to be signalled and says whether
// it was; with efd -1 it only waits.
func signalled(efd int, timeout time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(efd), Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, int(timeout/time.Millisecond)); err != nil {
		if err != unix.EINTR {
			time.Sleep(timeout)
		}
		return false
	}
	return fds[0].Revents&unix.POLLIN != 0
}

// readSignals takes efd's count: the signals since the last read.
func readSignals(efd int) uint64 {
	var count [8]byte
	if n, _ := unix.Read(efd, count[:]); n != len(count) {
		return 0
	}
	return binary.NativeEndian.Uint64(count[:])
}

// settleV1 follows an OOM event until oom_kill grows past before, for up
// to oomSettle. The group going first means its last process died right
// after the event, before its kill could be read: the OOM killer's victim,
// counted as one kill (callers weigh Kills with how the process ended,
// SIGKILL). An event that kills nothing within oomSettle (the OOM killer
// spares a group whose task is already exiting) counts nothing. It reads
// once more after the deadline, for a watch that ran late, and says
// whether the group is gone.
func (w *OOMWatch) settleV1(dir string, before int64) (gone bool) {
	deadline := time.Now().Add(oomSettle)
	for w.kills.Load() == before {
		time.Sleep(time.Millisecond)
		if !w.readV1(dir) {
			w.kills.Store(max(w.kills.Load(), before+1))
			return true
		}
		if time.Now().After(deadline) {
			break
		}
	}
	return false
}

// readV1 keeps the group's oom_kill when it is the highest seen, and says
// whether the group is still there.
func (w *OOMWatch) readV1(dir string) bool {
	oom, err := readKeyed(dir, "memory.oom_control")
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err == nil && oom["oom_kill"] > w.kills.Load() {
		w.kills.Store(oom["oom_kill"])
	}
	return true
}
