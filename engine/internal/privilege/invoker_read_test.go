package privilege

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file only root may read is refused under sudo (SUDO_UID and SUDO_GID
// stand in for it), whatever perfgate itself could read; one the invoker
// owns, or anyone may read, is not; without sudo nothing is checked.
func TestCheckInvokerCanRead(t *testing.T) {
	dir := t.TempDir()
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
	if err := CheckInvokerCanRead(rootOnly); err != nil {
		t.Errorf("without sudo: %v, want no check", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; the rest needs root")
	}
	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4242")
	if err := CheckInvokerCanRead(rootOnly); err == nil || !strings.Contains(err.Error(), "not readable by uid 4242") {
		t.Errorf("a root-only file: %v, want a refusal naming the invoker", err)
	}
	for _, p := range []string{theirs, everyones} {
		if err := CheckInvokerCanRead(p); err != nil {
			t.Errorf("%s: %v, want readable", filepath.Base(p), err)
		}
	}
}
