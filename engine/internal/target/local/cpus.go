package local

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// splitCPUs gives the service the last CPUs (as many as its limit rounds
// up to, leaving at least one) and the load generator the rest, so the two
// never compete for a core. With one CPU nothing is pinned.
func splitCPUs(allowed []int, cpuCores float64) (service, generator []int) {
	if len(allowed) < 2 {
		return nil, nil
	}
	n := int(math.Ceil(cpuCores))
	n = max(1, min(n, len(allowed)-1))
	return allowed[len(allowed)-n:], allowed[:len(allowed)-n]
}

func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
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

// pinSelf sets the affinity of every thread of this process; threads the Go
// runtime starts later inherit it from the thread that creates them.
func pinSelf(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
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
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin thread %d to CPUs %v: %w", tid, cpus, err)
		}
	}
	return nil
}
