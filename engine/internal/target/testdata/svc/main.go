// Command svc is a tiny service with failure modes for the targets'
// tests: it can die at start-up, never become ready, hog memory, or flood
// its logs.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	mode := flag.String("mode", "ok", "ok | die | never-ready | hog | spawn | spam-logs")
	flag.Parse()
	switch *mode {
	case "die":
		fmt.Fprintln(os.Stderr, "fatal: cannot open database: connection refused")
		os.Exit(3)
	case "spawn":
		// A child that would outlive a careless kill of the parent.
		p, _ := os.StartProcess("/bin/sleep", []string{"sleep", "300"}, &os.ProcAttr{})
		fmt.Println("child", p.Pid)
	case "spam-logs":
		// 8 MiB of numbered lines on each stream, then it serves.
		for i := range 8 << 20 / 64 {
			line := fmt.Sprintf("line %09d %048d\n", i, 0)
			os.Stdout.WriteString(line)
			os.Stderr.WriteString(line)
		}
		fmt.Println("last line of stdout")
		fmt.Fprintln(os.Stderr, "last line of stderr")
	}
	var hoard [][]byte
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if *mode == "never-ready" {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("/gomaxprocs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, runtime.GOMAXPROCS(0))
	})
	http.HandleFunc("/hog", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 64; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			hoard = append(hoard, b)
			time.Sleep(time.Millisecond)
		}
		fmt.Fprintln(w, len(hoard))
	})
	http.HandleFunc("/whoami", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(whoami())
	})
	fmt.Fprintln(os.Stderr, "listening on", *addr)
	if err := http.ListenAndServe(*addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// identity is what the service sees of itself: the tests check that it is
// not root, has no supplementary groups, runs in a private directory with
// an allowlisted environment and cannot loosen its own cgroup's limits.
type identity struct {
	Status           map[string]string `json:"status"` // Uid, Gid, Groups of /proc/self/status
	Dir              string            `json:"dir"`
	Env              []string          `json:"env"`
	CgroupLimitFile  string            `json:"cgroup_limit_file"`
	CgroupWriteError string            `json:"cgroup_write_error"` // "" when the write succeeded
}

func whoami() identity {
	id := identity{Status: map[string]string{}, Env: os.Environ()}
	id.Dir, _ = os.Getwd()
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "Uid" || k == "Gid" || k == "Groups") {
			id.Status[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	id.CgroupLimitFile = ownLimitFile()
	if id.CgroupLimitFile == "" {
		id.CgroupWriteError = "no cgroup limit file found"
		return id
	}
	// Open for writing only: writing the current value back would be
	// harmless, but opening is the permission check.
	f, err := os.OpenFile(id.CgroupLimitFile, os.O_WRONLY, 0)
	if err != nil {
		id.CgroupWriteError = err.Error()
		return id
	}
	f.Close()
	return id
}

// ownLimitFile is the CPU limit file of the process's own cgroup: cpu.max
// on cgroup v2, cpu.cfs_quota_us on v1.
func ownLimitFile() string {
	data, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
				return "/sys/fs/cgroup" + parts[2] + "/cpu.max"
			}
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				return "/sys/fs/cgroup/cpu" + parts[2] + "/cpu.cfs_quota_us"
			}
		}
	}
	return ""
}
