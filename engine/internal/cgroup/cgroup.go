// Package cgroup confines a service to a CPU quota and a memory limit with
// Linux control groups, v2 where the host has the unified hierarchy and v1
// otherwise, and reads back the limits and the counters perfgate records
// (CPU usage, throttling, memory peak, OOM kills).
//
// Groups are named perfgate-<host>-<pid>-<seq> (owner.Owner: the host
// identity and this perfgate's PID) so that a later perfgate on the same
// host can find and remove groups left behind by one that was killed, and
// never touches another host's or PID namespace's (see Sweep).
package cgroup

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

// Limits are the confinement of one service process.
type Limits struct {
	// CPUMillicores is the CPU quota in thousandths of a core (1000 = one core).
	CPUMillicores int64
	// MemoryBytes is the hard memory limit.
	MemoryBytes int64
	// CPUPeriodMicros is the CFS period the quota applies to.
	CPUPeriodMicros int64
}

// Stats are the cumulative counters of a group at one instant.
type Stats struct {
	CPUUsageNanos      int64
	Periods            int64
	ThrottledPeriods   int64
	ThrottledNanos     int64
	MemoryCurrentBytes int64
	MemoryPeakBytes    int64
	OOMKills           int64
}

// Group is one created control group (a directory per hierarchy in v1,
// a single directory in v2).
type Group struct {
	Version int
	// dirs maps a controller ("cpu", "cpuacct", "memory", or "" in v2) to
	// the group's directory in that hierarchy.
	dirs map[string]string
	// cpuset is the v1 cpuset hierarchy's directory of a group found by
	// OfProcess ("" otherwise), kept apart from dirs: only SetCPUs uses
	// it, and a process joins or leaves a group by dirs alone.
	cpuset string
	h      *Hierarchy
}

// Hierarchy is where this host lets perfgate create groups.
type Hierarchy struct {
	Version int
	// parents maps a controller to the directory new groups are created in.
	parents map[string]string
}

const namePrefix = "perfgate-"

var sequence atomic.Int64

// Detect finds the cgroup hierarchy of this host: v2 when the unified
// hierarchy is mounted at /sys/fs/cgroup with the cpu and memory
// controllers, v1 when cpu, cpuacct and memory hierarchies are mounted.
func Detect() (*Hierarchy, error) {
	return detect("/proc/self/mountinfo", "/proc/self/cgroup")
}

// Create makes a new group with the given limits and reads them back: a
// limit the kernel did not take is an error, not a silent unconfined run.
func (h *Hierarchy) Create(limits Limits) (*Group, error) {
	if limits.CPUPeriodMicros == 0 {
		limits.CPUPeriodMicros = 100_000
	}
	name := fmt.Sprintf("%s%s-%d", namePrefix, owner.Self(), sequence.Add(1))
	g := &Group{Version: h.Version, dirs: map[string]string{}, h: h}
	for controller, parent := range h.parents {
		dir := filepath.Join(parent, name)
		// Co-mounted controllers (cpu,cpuacct) share one directory.
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return nil, errors.Join(fmt.Errorf("create cgroup %s: %w", dir, err), g.Remove())
		}
		g.dirs[controller] = dir
	}
	var err error
	if h.Version == 2 {
		err = g.setLimitsV2(limits)
	} else {
		err = g.setLimitsV1(limits)
	}
	if err == nil {
		err = g.verify(limits)
	}
	if err != nil {
		return nil, errors.Join(err, g.Remove())
	}
	return g, nil
}

func (g *Group) verify(want Limits) error {
	got, err := g.Limits()
	if err != nil {
		return fmt.Errorf("read back cgroup limits: %w", err)
	}
	if got.CPUMillicores != want.CPUMillicores || got.MemoryBytes != PageRound(want.MemoryBytes) {
		return fmt.Errorf("cgroup did not take the limits: asked cpu %dm memory %d bytes, read back cpu %dm memory %d bytes",
			want.CPUMillicores, want.MemoryBytes, got.CPUMillicores, got.MemoryBytes)
	}
	return nil
}

// Name is the group's directory name, the same in every hierarchy.
func (g *Group) Name() string {
	for _, d := range g.dirs {
		return filepath.Base(d)
	}
	return ""
}

// ProcsFiles are the files a process writes its pid to in order to join
// the group (one per hierarchy in v1).
func (g *Group) ProcsFiles() []string {
	var files []string
	for _, d := range g.uniqueDirs() {
		files = append(files, filepath.Join(d, "cgroup.procs"))
	}
	return files
}

func (g *Group) uniqueDirs() []string { return uniqueValues(g.dirs) }

// Limits reads the limits back from the kernel.
func (g *Group) Limits() (Limits, error) {
	if g.Version == 2 {
		return g.limitsV2()
	}
	return g.limitsV1()
}

// Stats reads the group's cumulative counters.
func (g *Group) Stats() (Stats, error) {
	if g.Version == 2 {
		return g.statsV2()
	}
	return g.statsV1()
}

// Pids lists the processes still in the group that this PID namespace can
// name. The kernel lists a member of another PID namespace (a container's
// process seen from outside it, or ours seen from inside) as 0; it is left
// out, because kill(0) would signal perfgate's own process group.
func (g *Group) Pids() []int {
	seen := map[int]bool{}
	var pids []int
	for _, f := range g.ProcsFiles() {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(data)) {
			var pid int
			if _, err := fmt.Sscan(field, &pid); err == nil && pid > 0 && !seen[pid] {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// Remove kills whatever is still in the group and deletes its directories.
// It is safe to call more than once. A group perfgate did not create
// (OfProcess) is refused with ErrNotOwned.
func (g *Group) Remove() error {
	if g.h == nil {
		return ErrNotOwned
	}
	var errs []error
	for attempt := 0; attempt < 50; attempt++ {
		pids := g.Pids()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = killPid(pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, dir := range g.uniqueDirs() {
		if err := rmdirRetry(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// rmdirRetry removes a cgroup directory, retrying briefly because the kernel
// answers EBUSY until the last killed task is fully gone.
func rmdirRetry(dir string) error {
	var err error
	for attempt := 0; attempt < 100; attempt++ {
		err = os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// Sweep removes groups left by perfgate processes of this host identity
// that no longer exist (killed with SIGKILL; machine reboots are handled
// by the kernel). Groups of another host identity (a runner in another
// container sharing the cgroup tree) are never touched. It removes
// nothing, and says why, when this user may not remove groups here.
func (h *Hierarchy) Sweep() (owner.Swept, error) { return h.sweep(owner.Local()) }

func (h *Hierarchy) sweep(judge owner.Judge) (owner.Swept, error) {
	var swept owner.Swept
	for _, parent := range h.uniqueParents() {
		if err := syscall.Access(parent, writable); err != nil {
			return swept, fmt.Errorf("cgroup directory %s is not writable by this user (%w); removing perfgate's groups needs root (sudo)", parent, err)
		}
	}
	for _, parent := range h.uniqueParents() {
		entries, err := os.ReadDir(parent)
		if err != nil {
			return swept, fmt.Errorf("list cgroups in %s: %w", parent, err)
		}
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), namePrefix)
			if !e.IsDir() || !ok {
				continue
			}
			o, seq, ok := owner.Cut(rest)
			if _, err := strconv.Atoi(seq); !ok || err != nil || !judge.Stale(o) {
				continue
			}
			dir := filepath.Join(parent, e.Name())
			g := &Group{Version: h.Version, dirs: map[string]string{"": dir}, h: h}
			if err := g.Remove(); err != nil {
				swept.Failed = append(swept.Failed, fmt.Errorf("could not remove cgroup %s left by perfgate %s, which is gone: %w", dir, o, err))
			} else {
				swept.Removed = append(swept.Removed, "cgroup "+dir)
			}
		}
	}
	return swept, nil
}

// writable is access(2)'s W_OK.
const writable = 2

// Existing lists the perfgate groups that currently exist (for tests and
// diagnostics).
func (h *Hierarchy) Existing() []string {
	var names []string
	for _, parent := range h.uniqueParents() {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), namePrefix) {
				names = append(names, filepath.Join(parent, e.Name()))
			}
		}
	}
	return names
}

func (h *Hierarchy) uniqueParents() []string { return uniqueValues(h.parents) }

// uniqueValues lists a controller map's directories once each (co-mounted
// controllers such as cpu,cpuacct share one), sorted: callers that take
// the list twice must see the same order, which map iteration is not.
func uniqueValues(byController map[string]string) []string {
	dirs := slices.Collect(maps.Values(byController))
	slices.Sort(dirs)
	return slices.Compact(dirs)
}
