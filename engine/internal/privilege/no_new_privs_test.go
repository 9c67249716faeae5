package privilege

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

// Under sudo perfgate restarts itself with no_new_privs, so a command it
// runs as the invoker cannot become root through a setuid program (sudo
// with a fresh ticket, here a setuid-root copy of id): it stays the
// invoker. The restart happens in a helper process, this test binary run
// again.
func TestRestartWithoutNewPrivilegesStopsSetuidGains(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; this needs root")
	}
	suid := filepath.Join(privilegetest.ReachableDir(t, 0o755), "id")
	copyExecutable(t, "/usr/bin/id", suid)
	if err := os.Chmod(suid, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	// Without the flag, run as nobody, the copy gains root: else this file
	// system ignores setuid bits and the test proves nothing.
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
	plain := exec.Command(suid, "-u")
	AsInvoker(plain)
	if out, err := plain.Output(); err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Skipf("a setuid-root program run as nobody reports euid %q (%v): setuid bits do not work here", out, err)
	}

	helper := exec.Command(os.Args[0], "-test.run=^TestNoNewPrivilegesHelper$", "-test.v")
	helper.Env = append(os.Environ(), "PERFGATE_NNP_HELPER="+suid)
	out, err := helper.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "no_new_privs=true euid=65534") {
		t.Errorf("after the restart, the setuid program run as the invoker says:\n%s\nwant no_new_privs=true euid=65534", out)
	}
	if NoNewPrivileges() {
		t.Error("the test process itself got no_new_privs: the flag must come only with the restart")
	}
}

// TestNoNewPrivilegesHelper is the process the test above starts: it
// restarts itself as perfgate does, then runs the setuid program as the
// invoker.
func TestNoNewPrivilegesHelper(t *testing.T) {
	suid := os.Getenv("PERFGATE_NNP_HELPER")
	if suid == "" {
		t.Skip("run by TestRestartWithoutNewPrivilegesStopsSetuidGains")
	}
	if err := RestartWithoutNewPrivileges(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(suid, "-u")
	AsInvoker(cmd)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("no_new_privs=%v euid=%s\n", NoNewPrivileges(), strings.TrimSpace(string(out)))
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Skipf("%v", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
