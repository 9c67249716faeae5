package privilege

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

// A file only root may read is refused under sudo (SUDO_UID and SUDO_GID
// stand in for it), whatever perfgate itself could read; one the invoker
// owns, or anyone may read, is read; without sudo it reads as perfgate's
// own user; a file over the limit is refused, naming it.
func TestReadAsInvoker(t *testing.T) {
	dir := privilegetest.ReachableDir(t, 0o755)
	file := func(name string, mode os.FileMode, uid int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := os.Chown(p, uid, 0); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	rootOnly := file("root-only", 0o600, 0)
	theirs := file("theirs", 0o600, 4242)
	everyones := file("everyones", 0o644, 0)

	t.Setenv("SUDO_UID", "")
	if data, err := ReadAsInvoker(rootOnly, 10); err != nil || string(data) != "x" {
		t.Errorf("without sudo: %q, %v; want the file read as perfgate's user", data, err)
	}
	if _, err := ReadAsInvoker(rootOnly, 0); err == nil || !strings.Contains(err.Error(), "over 0 bytes") {
		t.Errorf("over the limit: %v, want a refusal naming it", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; the rest needs root")
	}
	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4242")
	if data, err := ReadAsInvoker(rootOnly, 10); err == nil || !strings.Contains(err.Error(), "not readable by uid 4242") || len(data) > 0 {
		t.Errorf("a root-only file: %q, %v; want a refusal naming the invoker", data, err)
	}
	for _, p := range []string{theirs, everyones} {
		if data, err := ReadAsInvoker(p, 10); err != nil || string(data) != "x" {
			t.Errorf("%s: %q, %v; want it read", filepath.Base(p), data, err)
		}
	}
}

// OpenAsInvoker opens as the invoker would: the directories on the way and
// the links followed count, not only the file's own mode bits, and the
// identity stays on the thread that opened (root reads on elsewhere).
func TestOpenAsInvokerReadsOnlyWhatTheInvokerCould(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; this needs root")
	}
	open := privilegetest.ReachableDir(t, 0o755)
	closed := filepath.Join(open, "closed") // root's, 0700: the invoker cannot pass
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path string, mode os.FileMode) string {
		if err := os.WriteFile(path, []byte("secret"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rootOnly := write(filepath.Join(open, "root-only"), 0o600)
	readable := write(filepath.Join(open, "perfgate.yml"), 0o644)
	hidden := write(filepath.Join(closed, "key"), 0o644) // readable bits, unreachable directory
	linkToRootOnly := filepath.Join(open, "link-to-root-only.yml")
	linkToHidden := filepath.Join(open, "link-to-hidden.yml")
	for link, to := range map[string]string{linkToRootOnly: rootOnly, linkToHidden: hidden} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}

	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4242")
	if f, err := OpenAsInvoker(readable); err != nil {
		t.Errorf("a file the invoker can read: %v", err)
	} else {
		f.Close()
	}
	for _, p := range []string{rootOnly, hidden, linkToRootOnly, linkToHidden} {
		f, err := OpenAsInvoker(p)
		if err == nil {
			f.Close()
			t.Errorf("%s: opened as uid 4242, want permission denied", p)
		} else if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: %v, want permission denied", p, err)
		}
		if _, err := ReadAsInvoker(p, 100); err == nil || !strings.Contains(err.Error(), "not readable by uid 4242") {
			t.Errorf("%s: ReadAsInvoker = %v, want a refusal naming the invoker", p, err)
		}
	}
	// perfgate's other threads are still root's: many opens as the invoker,
	// each on a thread that ends with it, and root reads on meanwhile.
	for range 50 {
		if f, err := OpenAsInvoker(rootOnly); err == nil {
			f.Close()
			t.Fatal("opened a root-only file as the invoker")
		}
		if _, err := os.ReadFile(hidden); err != nil {
			t.Fatalf("root can no longer read its own file: %v", err)
		}
	}
}
