package target

import (
	"time"

	"bufio"
	"fmt"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"os"
	"strconv"
	"strings"
)

// clockTicksPerSecond is USER_HZ, 100 on every Linux architecture Go
// supports; /proc/<pid>/stat reports CPU time in these ticks.
const clockTicksPerSecond = 100

// ProcessCPUNanos is utime+stime of a process from /proc/<pid>/stat, in
// nanoseconds with 10 ms resolution (cgroup usage is the precise figure).
func ProcessCPUNanos(pid int) (int64, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return (utime + stime) * (1e9 / clockTicksPerSecond), nil
}

// ParentPID is a process's parent, field 4 of /proc/<pid>/stat.
func ParentPID(pid int) (int, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(fields) < 2 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return ppid, nil
}

// statFields are the fields of /proc/<pid>/stat after the command name,
// from field 3 (state) on. The command name (field 2) may contain spaces
// and parentheses; the fields after its last closing parenthesis are
// fixed.
func statFields(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strings.Fields(s[end+1:]), nil
}

// MaxRSSBytes is VmHWM, the resident-set high-water mark of a process.
func MaxRSSBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 3 && fields[0] == "VmHWM:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// ReadCounters reads a service's counters on this machine: its process's
// CPU time and high-water mark from /proc and, when it is confined, its
// control group's counters. Every target whose service runs here (a
// process, a container, a pod on this node) reads them this way.
func ReadCounters(pid int, group *cgroup.Group) (Counters, error) {
	c := Counters{At: time.Now()}
	var err error
	if c.ProcessCPUNano, err = ProcessCPUNanos(pid); err != nil {
		return c, fmt.Errorf("read service CPU time: %w", err)
	}
	c.MaxRSSBytes, _ = MaxRSSBytes(pid)
	if group != nil {
		s, err := group.Stats()
		if err != nil {
			return c, fmt.Errorf("read cgroup counters: %w", err)
		}
		c.Cgroup = &s
	}
	return c, nil
}
