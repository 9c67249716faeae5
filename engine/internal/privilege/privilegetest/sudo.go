// Package privilegetest stands in for sudo in tests of code that runs
// commands as the invoking user.
package privilegetest

import (
	"os"
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
