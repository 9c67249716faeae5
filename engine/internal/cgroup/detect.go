package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// v1Controllers are the hierarchies perfgate needs on a cgroup v1 host:
// cpu for the quota and throttling, cpuacct for precise CPU usage, memory
// for the limit, the peak and OOM kills.
var v1Controllers = []string{"cpu", "cpuacct", "memory"}

type mount struct {
	root, point, fstype string
	superOptions        []string
}

func detect(mountinfoPath, selfCgroupPath string) (*Hierarchy, error) {
	mounts, err := readMounts(mountinfoPath)
	if err != nil {
		return nil, err
	}
	self, err := readCgroupFile(selfCgroupPath)
	if err != nil {
		return nil, err
	}
	for _, m := range mounts {
		if m.fstype == "cgroup2" && m.point == "/sys/fs/cgroup" {
			return detectV2(m)
		}
	}
	h := &Hierarchy{Version: 1, parents: map[string]string{}}
	for _, controller := range v1Controllers {
		for _, m := range mounts {
			if m.fstype != "cgroup" || !contains(m.superOptions, controller) {
				continue
			}
			h.parents[controller] = within(m, self[controller])
		}
		if h.parents[controller] == "" {
			return nil, fmt.Errorf("no cgroup v1 %q hierarchy is mounted and there is no cgroup v2 at /sys/fs/cgroup", controller)
		}
	}
	return h, nil
}

// detectV2 uses the root of the unified hierarchy: a group below a process's
// own cgroup cannot get controllers while that cgroup holds processes (the
// "no internal processes" rule), so perfgate's groups hang off the root.
func detectV2(m mount) (*Hierarchy, error) {
	data, err := os.ReadFile(filepath.Join(m.point, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("read cgroup v2 controllers: %w", err)
	}
	available := strings.Fields(string(data))
	for _, c := range []string{"cpu", "memory"} {
		if !contains(available, c) {
			return nil, fmt.Errorf("cgroup v2 at %s does not offer the %q controller (has: %s)", m.point, c, strings.Join(available, " "))
		}
	}
	return &Hierarchy{Version: 2, parents: map[string]string{"": m.point}}, nil
}

// readMounts parses /proc/self/mountinfo (see proc(5)).
func readMounts(path string) ([]mount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var mounts []mount
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || len(fields) < sep+4 {
			continue
		}
		mounts = append(mounts, mount{
			root:         fields[3],
			point:        fields[4],
			fstype:       fields[sep+1],
			superOptions: strings.Split(fields[sep+3], ","),
		})
	}
	return mounts, scanner.Err()
}

// readCgroupFile reads /proc/<pid>/cgroup: each v1 controller to the
// process's cgroup path, and the v2 entry ("0::/path") under "".
func readCgroupFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, controller := range strings.Split(parts[1], ",") {
			paths[controller] = parts[2]
		}
	}
	return paths, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
