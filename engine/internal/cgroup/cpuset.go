package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SetCPUs confines the group's processes to cpus through its cpuset
// (cpuset.cpus), and checks that the kernel granted exactly that set. The
// kernel moves the processes already in the group at once, and their
// threads to come inherit it. It serves a container perfgate did not
// create but places apart from its load generator (a local cluster's
// pod), as docker's --cpuset-cpus does for the docker target.
func (g *Group) SetCPUs(cpus []int) error {
	dir, err := g.cpusetDir()
	if err != nil {
		return err
	}
	want := FormatCPUs(cpus)
	if err := writeFile(dir, "cpuset.cpus", want); err != nil {
		return err
	}
	// v2 accepts a set beyond the parent's and grants only the overlap.
	got, err := g.CPUs()
	if err != nil {
		return err
	}
	if FormatCPUs(got) != want {
		return fmt.Errorf("cgroup %s: the kernel granted CPUs %q after cpuset.cpus was set to %q", dir, FormatCPUs(got), want)
	}
	return nil
}

// CPUs are the CPUs the group's processes may run on: the effective set,
// which the kernel derives from the group's own cpuset.cpus and its
// parents'. (v2's cpuset.cpus is empty until someone sets it, as the
// kubelet's default CPU policy never does; v1's is copied from the parent.)
func (g *Group) CPUs() ([]int, error) {
	dir, err := g.cpusetDir()
	if err != nil {
		return nil, err
	}
	name := "cpuset.effective_cpus"
	if g.Version == 2 {
		name = "cpuset.cpus.effective"
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	cpus, err := ParseCPUs(strings.TrimSpace(string(data)))
	if err == nil && len(cpus) == 0 {
		err = fmt.Errorf("%s is empty", filepath.Join(dir, name))
	}
	return cpus, err
}

// cpusetDir is the group's directory with a cpuset.cpus file: the cpuset
// hierarchy's in v1; in v2 the group's own, which has the file only when
// its parent enables the cpuset controller for it (the kubelet and
// container engines do).
func (g *Group) cpusetDir() (string, error) {
	dir := g.cpuset
	if g.Version == 2 {
		dir = g.dirs[""]
	}
	if dir == "" {
		return "", errors.New("cgroup: no cpuset hierarchy is mounted")
	}
	if _, err := os.Stat(filepath.Join(dir, "cpuset.cpus")); err != nil {
		if g.Version == 2 {
			return "", fmt.Errorf("cgroup %s has no cpuset controller: its parent's cgroup.subtree_control does not enable cpuset (%w)", dir, err)
		}
		return "", fmt.Errorf("cgroup %s has no cpuset controller (%w)", dir, err)
	}
	return dir, nil
}

// FormatCPUs writes CPUs as the kernel's list format ("0-2,5"), in
// ascending order whatever the order given.
func FormatCPUs(cpus []int) string {
	cpus = slices.Sorted(slices.Values(cpus))
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ParseCPUs reads the kernel's list format ("0-2,5"; "" is no CPU).
func ParseCPUs(list string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(list, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", list, err)
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				return nil, fmt.Errorf("CPU list %q: bad range %q", list, part)
			}
		}
		for c := first; c <= last; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
