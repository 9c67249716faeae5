// Package affinity pins perfgate, which is the load generator, to the
// CPUs a run gives it, and starts the commands perfgate runs between
// measurements (builds, relinks, image loads) on the CPUs it had before.
//
// A child process inherits the affinity of the thread that forks it, and
// `go build` hands it on to the compiler and the linker. Pinned to the
// load generator's one CPU of two, the relinks of a duet's next round
// (two sides, in parallel, while the last round's instances stop) took
// ~2.3 s instead of ~1.3 s on both (docs/benchmarks.md, "Commands between
// rounds on all CPUs"), and a cluster round's wait between rounds grew by
// ~1 s. Nothing is measured while they run.
package affinity

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

var (
	// mu orders Pin, Unpin and Start: a child must not be started on a
	// thread whose affinity Pin is changing.
	mu sync.Mutex
	// unpinned is perfgate's affinity before Pin and pinned its affinity
	// since; both nil when not pinned.
	unpinned, pinned []int
)

// Allowed are the CPUs perfgate's calling thread may run on.
func Allowed() ([]int, error) {
	return OfTask(0)
}

// OfTask are the CPUs a thread (or a process's main thread, by its pid)
// may run on; 0 is the calling thread.
func OfTask(id int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(id, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// Pin sets the affinity of every thread of perfgate; threads the Go
// runtime starts later inherit it from the thread that creates them. The
// affinity from before the first Pin is kept for Unpin and Start. A Pin
// that fails puts every thread back where it was (pinned by an earlier
// Pin, or not pinned).
func Pin(cpus []int) error {
	mu.Lock()
	defer mu.Unlock()
	before := unpinned
	if before == nil {
		var err error
		if before, err = Allowed(); err != nil {
			return fmt.Errorf("read CPU affinity: %w", err)
		}
	}
	if err := setAll(cpus); err != nil {
		if pinned != nil {
			_ = setAll(pinned)
		} else {
			_ = setAll(before)
		}
		return err
	}
	unpinned, pinned = before, cpus
	return nil
}

// Unpin restores perfgate's affinity from before Pin; without a Pin it
// does nothing.
func Unpin() error {
	mu.Lock()
	defer mu.Unlock()
	if unpinned == nil {
		return nil
	}
	if err := setAll(unpinned); err != nil {
		return err
	}
	unpinned, pinned = nil, nil
	return nil
}

// Start starts cmd with perfgate's affinity from before Pin, so that a
// command run between measurements is not squeezed onto the load
// generator's CPUs. Unpinned, it is cmd.Start.
func Start(cmd *exec.Cmd) error {
	mu.Lock()
	defer mu.Unlock()
	if unpinned == nil {
		return cmd.Start()
	}
	started := make(chan error, 1)
	go func() {
		// The child inherits the forking thread's affinity: widen a
		// thread locked to this goroutine for the fork, then pin it
		// again. (A thread the runtime starts meanwhile comes from its
		// template thread, not from a locked one.) A thread that cannot
		// be pinned again stays locked and leaves with the goroutine
		// (the main thread is parked for good instead), so no load
		// generator goroutine ever runs on it.
		runtime.LockOSThread()
		if err := unix.SchedSetaffinity(0, cpuSet(unpinned)); err != nil {
			started <- fmt.Errorf("start %s on CPUs %v: %w", cmd.Path, unpinned, err)
			return
		}
		err := cmd.Start()
		if unix.SchedSetaffinity(0, cpuSet(pinned)) == nil {
			runtime.UnlockOSThread()
		}
		started <- err
	}()
	return <-started
}

// Run is Start, then cmd.Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// setAll sets the affinity of every thread of this process.
func setAll(cpus []int) error {
	set := cpuSet(cpus)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may exit between the listing and this call.
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin thread %d to CPUs %v: %w", tid, cpus, err)
		}
	}
	return nil
}

func cpuSet(cpus []int) *unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return &set
}
