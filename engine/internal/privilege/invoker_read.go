package privilege

import (
	"fmt"
	"os"
	"syscall"
)

// CheckInvokerCanRead says whether the invoker could read path themselves,
// from its owner and mode (no ACLs), when perfgate runs as root through
// sudo: a path a pull request names (kubernetes.kubeconfig) is read by
// root, and what root reads can come back in an error or a log, so a file
// only root may read (/etc/shadow, a key) is refused before it is opened.
// Without sudo it checks nothing: the user reads with their own rights.
func CheckInvokerCanRead(path string) error {
	u, ok := Invoker()
	if !ok {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: its owner cannot be read", path)
	}
	perm := info.Mode().Perm()
	switch {
	case int(st.Uid) == u.UID && perm&0o400 != 0,
		int(st.Gid) == u.GID && perm&0o040 != 0,
		perm&0o004 != 0:
		return nil
	}
	return fmt.Errorf("%s (owner uid %d, mode %v) is not readable by uid %d, who ran perfgate through sudo; perfgate reads it as root, so it reads only what that user could", path, st.Uid, perm, u.UID)
}
