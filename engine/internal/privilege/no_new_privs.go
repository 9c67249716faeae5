package privilege

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// prSetNoNewPrivs and prGetNoNewPrivs are prctl(2)'s options.
const (
	prSetNoNewPrivs = 38
	prGetNoNewPrivs = 39
)

// NoNewPrivileges reports whether this process runs with Linux's
// no_new_privs flag: no program it starts, nor theirs, can gain privileges
// through a setuid or setgid bit or file capabilities.
func NoNewPrivileges() bool {
	v, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0)
	return errno == 0 && v == 1
}

// RestartWithoutNewPrivileges makes perfgate run under no_new_privs when it
// runs as root through sudo, restarting itself once to get there; it
// returns only if nothing needs doing or the restart could not happen.
//
// Under sudo perfgate runs the pull request's build, service, reset and
// image_load as the invoker (AsInvoker), and such a command could run
// sudo itself: on a reviewer's machine the password just typed left a
// ticket that `sudo -n` takes without asking, and the pull request's code
// would be root. With no_new_privs, sudo (a setuid program), su and pkexec
// gain nothing. The flag is per thread and inherited by the threads and
// processes each creates, and Go starts threads before main; so it is set
// on one locked thread, which then execs perfgate again: the new process
// starts from that thread, flag and all. perfgate itself stays root: the
// flag only stops gains. Without sudo (a user, or root itself) nothing is
// done: a user's commands gain what the user could give them anyway.
func RestartWithoutNewPrivileges() error {
	if _, ok := Invoker(); !ok || NoNewPrivileges() {
		return nil
	}
	// /proc/self/exe is this very file even if the path was deleted or
	// replaced since it started (os.Executable would exec a replacement).
	const exe = "/proc/self/exe"
	runtime.LockOSThread() // the exec below must come from this thread
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		runtime.UnlockOSThread()
		return fmt.Errorf("no_new_privs: prctl: %w", errno)
	}
	err := syscall.Exec(exe, os.Args, os.Environ())
	// Only on failure: this thread has the flag; keep it locked, so that
	// no other goroutine runs on it with a flag the others lack.
	return fmt.Errorf("no_new_privs: restarting perfgate (%s): %w", exe, err)
}
