package privilege

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// chownTree gives to u every entry of the tree at dir that is owned by
// root and was changed since since. It runs as root in a directory the
// invoking user can write to (the results directory), so it works
// relative to file descriptors and never through a path a second time:
// each directory is opened with O_NOFOLLOW and its entries are reached
// from that descriptor, and each entry is checked and changed through one
// descriptor of its own. A directory swapped for a symbolic link between
// the listing and the descent is skipped instead of followed to, say,
// /etc; a symbolic link is changed itself, never its target; a file with
// a second hard link (possibly to a file outside the tree) keeps its
// owner.
func chownTree(dir string, u User, since time.Time) error {
	return chownEntry(unix.AT_FDCWD, dir, dir, u, since)
}

// beforeDescend, when set by a test, runs between listing a directory and
// visiting its entries: the window in which the tree's owner could swap
// an entry.
var beforeDescend func(dir string)

// chownEntry gives name, in the directory at parent (path for messages),
// to u, and what is under it when it is a directory.
func chownEntry(parent int, name, path string, u User, since time.Time) error {
	fd, err := unix.Openat(parent, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // removed since it was listed
	}
	if err != nil {
		return fmt.Errorf("open %s to give it back: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fmt.Errorf("stat %s: %w", path, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if isDir {
		// O_PATH cannot list a directory nor fchown it; reopen it through
		// the same descriptor, so it is the directory just checked.
		dirFd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("open %s to give it back: %w", path, err)
		}
		fd = dirFd
	}
	defer unix.Close(fd)
	changed := time.Unix(st.Mtim.Unix())
	if st.Uid == 0 && !changed.Before(since) && (isDir || st.Nlink == 1) {
		var err error
		if isDir {
			err = unix.Fchown(fd, u.UID, u.GID)
		} else {
			// The O_PATH descriptor itself, a symbolic link included.
			err = unix.Fchownat(fd, "", u.UID, u.GID, unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil {
			return fmt.Errorf("give %s to %s: %w", path, u, err)
		}
	}
	if !isDir {
		return nil
	}
	names, err := readNames(fd)
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	if beforeDescend != nil {
		beforeDescend(path)
	}
	for _, n := range names {
		if err := chownEntry(fd, n, filepath.Join(path, n), u, since); err != nil {
			return err
		}
	}
	return nil
}

// readNames lists the directory open at fd, leaving fd open.
func readNames(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	return f.Readdirnames(-1)
}
