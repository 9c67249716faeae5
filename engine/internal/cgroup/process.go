package cgroup

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotOwned is returned by Remove on a group perfgate did not create.
var ErrNotOwned = errors.New("cgroup: not created by perfgate; only its owner removes it")

// OfProcess is the control group a running process is in, for reading its
// limits and counters: a container's, whose group the container engine or
// the kubelet created and owns. The result is read-only in spirit; Remove
// refuses it.
func OfProcess(pid int) (*Group, error) {
	return ofProcess("/proc/self/mountinfo", fmt.Sprintf("/proc/%d/cgroup", pid))
}

func ofProcess(mountinfoPath, cgroupPath string) (*Group, error) {
	mounts, err := readMounts(mountinfoPath)
	if err != nil {
		return nil, err
	}
	paths, err := readCgroupFile(cgroupPath)
	if err != nil {
		return nil, err
	}
	for _, m := range mounts {
		if m.fstype == "cgroup2" && m.point == "/sys/fs/cgroup" {
			unified, ok := paths[""]
			if !ok {
				return nil, fmt.Errorf("%s has no cgroup v2 entry", cgroupPath)
			}
			return &Group{Version: 2, dirs: map[string]string{"": within(m, unified)}}, nil
		}
	}
	g := &Group{Version: 1, dirs: map[string]string{}}
	for _, controller := range v1Controllers {
		for _, m := range mounts {
			if m.fstype == "cgroup" && contains(m.superOptions, controller) {
				if p, ok := paths[controller]; ok {
					g.dirs[controller] = within(m, p)
				}
			}
		}
		if g.dirs[controller] == "" {
			return nil, fmt.Errorf("%s names no group in a mounted %q hierarchy", cgroupPath, controller)
		}
	}
	// cpuset is optional: only a container perfgate places (SetCPUs)
	// needs it.
	for _, m := range mounts {
		if p, ok := paths["cpuset"]; ok && m.fstype == "cgroup" && contains(m.superOptions, "cpuset") {
			g.cpuset = within(m, p)
		}
	}
	return g, nil
}

// within maps a cgroup path as a process sees it to a directory under the
// mount, whose root may itself be a group (inside a container).
func within(m mount, path string) string {
	return filepath.Join(m.point, strings.TrimPrefix(path, strings.TrimSuffix(m.root, "/")))
}
