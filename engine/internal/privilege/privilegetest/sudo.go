// Package privilegetest stands in for sudo in tests of code that runs
// commands as the invoking user.
package privilegetest

import (
	"os"
	"path/filepath"
	"testing"
)

// SudoFromNobody makes the test look like perfgate reached through sudo by
// nobody (SUDO_UID and SUDO_GID 65534: nobody exists in every password
// database this runs on), and skips it unless it runs as root, since only
// root can run a command as another user.
func SudoFromNobody(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("only root can run a command as another user")
	}
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
}

// ReachableDir is a new temporary directory that the invoker can reach,
// with mode (0o755 to read in it, 0o777 to write): t.TempDir makes it and
// the test's directory above it 0700, root's, which no other user may
// pass, unlike a checkout's directories. What the invoker may read in it
// is then up to each file.
func ReachableDir(t testing.TB, mode os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
