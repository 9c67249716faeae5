package privilege

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

func TestInvokerFromSudo(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, c := range []struct {
		name string
		vars map[string]string
		want User
		ok   bool
	}{
		{"sudo by runner", map[string]string{"SUDO_UID": "1001", "SUDO_GID": "118"}, User{1001, 118}, true},
		{"no sudo", map[string]string{}, User{}, false},
		{"sudo by root", map[string]string{"SUDO_UID": "0", "SUDO_GID": "0"}, User{}, false},
		{"garbage", map[string]string{"SUDO_UID": "1001;x", "SUDO_GID": "118"}, User{}, false},
		{"uid without gid", map[string]string{"SUDO_UID": "1001"}, User{}, false},
	} {
		got, ok := invokerFrom(env(c.vars))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestServiceUserIsNeverRoot(t *testing.T) {
	u := ServiceUser()
	if os.Geteuid() != 0 {
		if u != nil {
			t.Fatalf("not root, yet ServiceUser = %v", u)
		}
		return
	}
	if u == nil || u.UID == 0 || u.GID == 0 {
		t.Fatalf("root, and the service would run as %v", u)
	}
}

func TestChownTreeGivesBackOnlyWhatTheRunWrote(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	var st0 syscall.Stat_t
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs", "round-01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", "round-01", "stderr.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(time.Minute)
	// Written "before" since: it must keep its owner.
	if err := os.Chtimes(old, since.Add(-time.Hour), since.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	future := since.Add(time.Hour)
	for _, p := range []string{dir, filepath.Join(dir, "logs"), filepath.Join(dir, "logs", "round-01"), filepath.Join(dir, "logs", "round-01", "stderr.log")} {
		if err := os.Chtimes(p, future, future); err != nil {
			t.Fatal(err)
		}
	}
	if err := chownTree(dir, User{UID: 4321, GID: 4322}, since); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Lstat(old, &st0); err != nil || st0.Uid != 0 {
		t.Errorf("%s, older than the run, changed owner to %d", old, st0.Uid)
	}
	for _, p := range []string{dir, filepath.Join(dir, "logs"), filepath.Join(dir, "logs", "round-01", "stderr.log")} {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil || st.Uid != 4321 || st.Gid != 4322 {
			t.Errorf("%s: owner %d:%d, %v; want 4321:4322", p, st.Uid, st.Gid, err)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(outside, &st); err != nil || st.Uid != 0 {
		t.Errorf("the link's target changed owner to %d: a symlink in the results must not give away files outside them", st.Uid)
	}
}

// TestAsInvokerRunsCommandsAsTheSudoUser: under sudo (SUDO_UID and
// SUDO_GID stand in for it here; scripts/vm/suite.sh has the real one), a
// command runs as the invoker, without root's groups, with the invoker's
// HOME; without sudo it runs as perfgate.
func TestAsInvokerRunsCommandsAsTheSudoUser(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	cmd := exec.Command("sh", "-c", `echo "$(id -u) $(id -g) [$(id -G)] $HOME"`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/root"}
	AsInvoker(cmd)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	home := homeOf(User{UID: 65534})
	if got, want := strings.TrimSpace(string(out)), "65534 65534 [65534] "+home; got != want {
		t.Errorf("ran as %q, want %q", got, want)
	}

	t.Setenv("SUDO_UID", "")
	cmd = exec.Command("id", "-u")
	AsInvoker(cmd)
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("without sudo: ran as %q, %v; want perfgate's own user (0)", out, err)
	}
}
