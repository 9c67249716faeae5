package local

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// shimEnv carries a shimSpec from perfgate to a re-executed copy of itself.
//
// A service must run inside its cgroup and on its CPUs from its first
// instruction, or its start-up (and any thread it spawns) escapes the limits.
// Go's os/exec cannot do that on cgroup v1, so perfgate starts itself again
// with this variable set; that copy joins the cgroup, pins its thread and
// execs the service binary, which inherits both. The check lives in init so
// that it also works in test binaries that import this package.
const shimEnv = "PERFGATE_LOCAL_SHIM"

type shimSpec struct {
	Binary     string   `json:"binary"`
	ProcsFiles []string `json:"procs_files,omitempty"`
	CPUs       []int    `json:"cpus,omitempty"`
}

func init() {
	if encoded, ok := os.LookupEnv(shimEnv); ok {
		runShim(encoded)
	}
}

// runShim never returns: it becomes the service or exits with 127.
func runShim(encoded string) {
	runtime.LockOSThread()
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "perfgate: cannot start the service confined: %v\n", err)
		os.Exit(127)
	}
	var spec shimSpec
	if err := json.Unmarshal([]byte(encoded), &spec); err != nil {
		fail(err)
	}
	pid := strconv.Itoa(os.Getpid())
	for _, f := range spec.ProcsFiles {
		if err := os.WriteFile(f, []byte(pid), 0o644); err != nil {
			fail(fmt.Errorf("join cgroup: %w", err))
		}
	}
	if len(spec.CPUs) > 0 {
		var set unix.CPUSet
		for _, c := range spec.CPUs {
			set.Set(c)
		}
		// execve keeps the calling thread's affinity, and this thread is
		// the one that execs.
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			fail(fmt.Errorf("pin to CPUs %v: %w", spec.CPUs, err))
		}
	}
	env := os.Environ()
	for i, kv := range env {
		if len(kv) > len(shimEnv) && kv[:len(shimEnv)+1] == shimEnv+"=" {
			env = append(env[:i], env[i+1:]...)
			break
		}
	}
	argv := append([]string{spec.Binary}, os.Args[1:]...)
	fail(syscall.Exec(spec.Binary, argv, env))
}
