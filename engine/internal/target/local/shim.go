package local

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// shimEnv carries a shimSpec from perfgate to a re-executed copy of itself.
//
// A service must run inside its cgroup and on its CPUs from its first
// instruction, or its start-up (and any thread it spawns) escapes the limits.
// Go's os/exec cannot do that on cgroup v1, so perfgate starts itself again
// with this variable set; that copy joins the cgroup (which needs root),
// pins its thread, drops to the service's user, enters the service's
// private directory and execs the service binary, which inherits all of
// it. The check lives in init so that it also works in test binaries that
// import this package.
const shimEnv = "PERFGATE_LOCAL_SHIM"

type shimSpec struct {
	Binary     string   `json:"binary"`
	ProcsFiles []string `json:"procs_files,omitempty"`
	CPUs       []int    `json:"cpus,omitempty"`
	// User is whom the service runs as, when perfgate is root: the pull
	// request's code never runs as root (privilege.ServiceUser).
	User *privilege.User `json:"user,omitempty"`
	// Dir is the service's private working directory.
	Dir string `json:"dir,omitempty"`
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
	if spec.User != nil {
		if err := dropTo(*spec.User); err != nil {
			fail(err)
		}
	}
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			fail(fmt.Errorf("enter the service's directory: %w", err))
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

// dropTo gives up root for u, with no supplementary groups: root's would
// otherwise stay with the service. The group goes first, while the process
// may still change it. Go applies each call to every thread of the
// process (Go 1.16+), so no thread keeps root.
func dropTo(u privilege.User) error {
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("clear supplementary groups: %w", err)
	}
	if err := syscall.Setgid(u.GID); err != nil {
		return fmt.Errorf("set group to %d: %w", u.GID, err)
	}
	if err := syscall.Setuid(u.UID); err != nil {
		return fmt.Errorf("set user to %d: %w", u.UID, err)
	}
	// Belt and braces: a kernel or runtime that silently kept root must
	// not run the pull request's code.
	if os.Geteuid() == 0 || os.Getuid() == 0 {
		return fmt.Errorf("still root after dropping to %s", u)
	}
	// The kernel clears the parent-death signal when the credentials
	// change; set it again, so the service still dies with perfgate.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("set the parent-death signal: %w", err)
	}
	if os.Getppid() == 1 {
		return fmt.Errorf("perfgate exited while the service was starting")
	}
	return nil
}
