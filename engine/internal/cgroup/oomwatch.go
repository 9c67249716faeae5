package cgroup

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// OOMWatch remembers OOM kills in a group that may vanish right after one.
// Docker removes a container's group as soon as its process is gone, so
// counters read afterwards are not there, and Docker's own word can miss
// the kill: Docker 20.10 on cgroup v2 does not set State.OOMKilled (found
// in the runner-like VM, scripts/vm), and on v1 State.OOMKilled can miss a
// kill that ends the container at once (a CI flake of the docker target's
// 6Mi gate). The kernel tells a watcher when an OOM kill happens, as it
// tells containerd: the watch reads the group's oom_kill then, and every
// pollEvery besides, and keeps the highest seen.
//
// On v2 it is told by inotify: the kernel notifies inotify watchers of
// every change of memory.events. The group can still go before the watch
// gets to read it (seen under emulation), so the v2 watch also counts the
// parent's oom_kill, which is hierarchical and outlives the group: its
// growth while the watch ran counts too. A sibling's OOM kill in that time
// would count as well; callers weigh Kills with how the process ended
// (SIGKILL). On v1 it is told by the notification API's eventfd, signalled
// just before the kill (oomwatch_v1.go).
type OOMWatch struct {
	kills atomic.Int64
	// parent is the parent group's directory when it has memory.events
	// (the root group has none), and parentAtStart its oom_kill then.
	parent        string
	parentAtStart int64
	stop          chan struct{}
	done          chan struct{}
	once          sync.Once
}

const pollEvery = 250 * time.Millisecond

// WatchOOMKills starts an OOMWatch on the group: on v2 on its directory,
// on v1 on its memory controller's. A nil *OOMWatch is usable.
func (g *Group) WatchOOMKills() (*OOMWatch, error) {
	if g.Version != 2 {
		return g.watchOOMKillsV1()
	}
	dir := g.dirs[""]
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := unix.InotifyAddWatch(fd, dir+"/memory.events", unix.IN_MODIFY); err != nil {
		unix.Close(fd)
		return nil, err
	}
	w := &OOMWatch{stop: make(chan struct{}), done: make(chan struct{})}
	if events, err := readKeyed(filepath.Dir(dir), "memory.events"); err == nil {
		w.parent, w.parentAtStart = filepath.Dir(dir), events["oom_kill"]
	}
	go w.run(fd, dir)
	return w, nil
}

func (w *OOMWatch) run(fd int, dir string) {
	defer close(w.done)
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	for {
		if events, err := readKeyed(dir, "memory.events"); err == nil && events["oom_kill"] > w.kills.Load() {
			w.kills.Store(events["oom_kill"])
		}
		select {
		case <-w.stop:
			return
		default:
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(pollEvery/time.Millisecond)); err != nil && err != unix.EINTR {
			return
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			n, _ := unix.Read(fd, buf)
			if n > 0 && removed(buf[:n]) {
				// The group is gone: one last read cannot find it.
				return
			}
		}
	}
}

// removed says whether inotify events include IN_IGNORED: the watched
// file went away with its group.
func removed(events []byte) bool {
	for len(events) >= unix.SizeofInotifyEvent {
		e := (*unix.InotifyEvent)(unsafe.Pointer(&events[0]))
		if e.Mask&unix.IN_IGNORED != 0 {
			return true
		}
		size := unix.SizeofInotifyEvent + int(e.Len)
		if size > len(events) {
			break
		}
		events = events[size:]
	}
	return false
}

// Kills is the highest oom_kill count seen so far in the group, or on v2
// the parent's growth since the watch began when that is higher.
func (w *OOMWatch) Kills() int64 {
	if w == nil {
		return 0
	}
	kills := w.kills.Load()
	if w.parent != "" {
		if events, err := readKeyed(w.parent, "memory.events"); err == nil {
			kills = max(kills, events["oom_kill"]-w.parentAtStart)
		}
	}
	return kills
}

// Stop ends the watch and waits for it.
func (w *OOMWatch) Stop() {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
}
