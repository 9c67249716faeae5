package privilege

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// OpenAsInvoker opens path for reading with the invoker's rights when
// perfgate runs as root through sudo. The kernel then checks every
// directory on the way and the file itself, following symbolic links as
// that user would, against the invoker's uid, gid and own groups: a
// perfgate.yml or kubeconfig that a pull request points at /etc/shadow, at
// a key in /root, or through a link into either, fails to open as it would
// for that user, and none of its content can reach an error or a log.
// Checking the mode bits first and opening as root after would miss the
// directories and leave the file to be swapped in between. Without sudo it
// is os.Open.
func OpenAsInvoker(path string) (*os.File, error) {
	u, ok := Invoker()
	if !ok {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		// Only this thread takes the invoker's identity for files. It is
		// locked to this goroutine and never unlocked, so the runtime ends
		// the thread with the goroutine instead of giving root's other
		// work a thread that acts as the invoker.
		runtime.LockOSThread()
		if err := becomeForFiles(u, groupsOf(u)); err != nil {
			done <- opened{err: err}
			return
		}
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	r := <-done
	return r.f, r.err
}

// becomeForFiles gives the calling thread u's identity for file access:
// its supplementary groups, then its file system gid and uid. Linux keeps
// these per thread; the raw system calls change this thread alone, where
// syscall.Setgroups (like glibc) would change every thread of perfgate.
// Leaving fsuid 0 also drops the thread's capabilities that bypass file
// permissions.
func becomeForFiles(u User, groups []uint32) error {
	var list unsafe.Pointer
	if len(groups) > 0 {
		list = unsafe.Pointer(&groups[0])
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(groups)), uintptr(list), 0); errno != 0 {
		return fmt.Errorf("reading as uid %d: setgroups: %w", u.UID, errno)
	}
	// Their results are the previous ids, not errors: checked below.
	_, _, _ = syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(u.GID), 0, 0)
	_, _, _ = syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(u.UID), 0, 0)
	// setfsuid and setfsgid report no error: ask for an invalid id (-1),
	// which changes nothing and returns the current one.
	fsgid, _, _ := syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(^uint32(0)), 0, 0)
	fsuid, _, _ := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(^uint32(0)), 0, 0)
	if int(fsuid) != u.UID || int(fsgid) != u.GID {
		return fmt.Errorf("reading as uid %d: the thread's file identity is uid %d gid %d", u.UID, fsuid, fsgid)
	}
	return nil
}
