package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// TestCheckPrebuilt: a prebuilt binary needs layout: build when the
// experiment relinks, and must be an executable file.
func TestCheckPrebuilt(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(bin, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExecutable := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(notExecutable, []byte("\x7fELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	random, layoutBuild := config.Default(), config.Default()
	layoutBuild.Layout = "build"
	both := map[string]string{"--base-binary": bin, "--head-binary": bin}
	for _, tc := range []struct {
		name    string
		cfg     *config.Config
		byFlag  map[string]string
		relinks bool
		want    string // in the error; "" for none
	}{
		{"none given", random, map[string]string{"--base-binary": "", "--head-binary": ""}, true, ""},
		{"random layout", random, both, true, "--base-binary and --head-binary: a prebuilt binary cannot be relinked"},
		{"build layout", layoutBuild, both, true, ""},
		{"a recording does not relink", random, map[string]string{"--binary": bin}, false, ""},
		{"not executable", layoutBuild, map[string]string{"--binary": notExecutable}, false, "is not an executable file"},
		{"missing", layoutBuild, map[string]string{"--binary": bin + ".missing"}, false, "is not an executable file"},
	} {
		err := checkPrebuilt(tc.cfg, tc.byFlag, tc.relinks)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
