package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func writeFile(dir, name, value string) error {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, filepath.Join(dir, name), err)
	}
	return nil
}

func readInt(dir, name string) (int64, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// readKeyed parses flat keyed files such as cpu.stat or memory.events.
func readKeyed(dir, name string) (map[string]int64, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	values := map[string]int64{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) != 2 {
			continue
		}
		if v, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
			values[fields[0]] = v
		}
	}
	return values, scanner.Err()
}

// killPid kills one process. A pid of 0 or below names a process group
// (kill(0) is perfgate's own, kill(-1) every process it may signal), never
// one process, and is refused.
func killPid(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("refusing to kill pid %d: it names a process group, not a process", pid)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// PageRound is the kernel's rounding of a memory limit down to whole pages.
func PageRound(bytes int64) int64 {
	page := int64(os.Getpagesize())
	return bytes / page * page
}
