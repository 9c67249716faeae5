package privilege

import (
	"errors"
	"fmt"
	"io/fs"
)

// CheckInvokerCanRead says whether the invoker could read path themselves
// (opening it as them, OpenAsInvoker) when perfgate runs as root through
// sudo: a path a pull request names (kubernetes.kubeconfig) is read by
// root through a library that takes a path, and what root reads can come
// back in an error or a log, so a file only root may reach (/etc/shadow, a
// key, anything under /root) is refused before it is read. Without sudo it
// checks nothing: the user reads with their own rights.
func CheckInvokerCanRead(path string) error {
	u, ok := Invoker()
	if !ok {
		return nil
	}
	f, err := OpenAsInvoker(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%s is not readable by uid %d, who ran perfgate through sudo; perfgate reads it as root, so it reads only what that user could", path, u.UID)
		}
		return err
	}
	return f.Close()
}
