package privilege

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ReadAsInvoker reads at most limit bytes of path with the file identity
// of the user who ran perfgate through sudo (OpenAsInvoker): a path a pull
// request names (kubernetes.kubeconfig and the files it refers to) is read
// once, as that user, and what root hands on is that content, so a file
// only root may reach (/etc/shadow, a key, anything under /root) is
// refused, and no file swapped after a check is read in its place. A file
// the user cannot read is an error naming their uid; a larger one is an
// error naming the limit. Without sudo it reads as perfgate's own user.
func ReadAsInvoker(path string, limit int) ([]byte, error) {
	f, err := OpenAsInvoker(path)
	if err != nil {
		if u, ok := Invoker(); ok && errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%s is not readable by uid %d, who ran perfgate through sudo; perfgate reads it as that user, so it reads only what that user could", path, u.UID)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s is over %d bytes, more than perfgate reads from it", path, limit)
	}
	return data, nil
}
