package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

// Under sudo perfgate.yml is read with the rights of the user who ran
// sudo: a pull request that makes it a link to a file only root may read
// gets an error naming that user, and not a line of the file, which a
// parse error would otherwise quote ("root:$6$...: is not a known key").
func TestLoadReadsAsTheUserWhoRanSudo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; this needs root")
	}
	dir := privilegetest.ReachableDir(t, 0o755)
	shadow := filepath.Join(dir, "shadow")
	if err := os.WriteFile(shadow, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "perfgate.yml")
	if err := os.Symlink(shadow, linked); err != nil {
		t.Fatal(err)
	}
	readable := filepath.Join(dir, "readable.yml")
	if err := os.WriteFile(readable, []byte("version: 1\n"+svc), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4242")
	if _, err := Load(readable); err != nil {
		t.Errorf("a perfgate.yml the user can read: %v", err)
	}
	_, err := Load(linked)
	if err == nil {
		t.Fatal("a perfgate.yml linked to a root-only file was read")
	}
	msg := err.Error()
	if strings.Contains(msg, "SECRET") {
		t.Errorf("the error quotes the root-only file: %s", msg)
	}
	for _, want := range []string{linked, "cannot be read by uid 4242", "a perfgate.yml that user can read"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}

}
