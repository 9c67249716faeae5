package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

// service.build.command comes from the pull request: under sudo it runs as
// the user who ran sudo (SUDO_UID and SUDO_GID stand in for it; nobody
// exists everywhere), never as root.
func TestCustomBuildRunsAsTheInvoker(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	tree := privilegetest.ReachableDir(t, 0o777) // nobody writes its output here
	out := filepath.Join(tree, "service")
	command := []string{"sh", "-c", "id -u > {out}.uid && id -G >> {out}.uid && cp /bin/true {out}"}
	if _, err := customBuild(context.Background(), "head", tree, ".", command, out); err != nil {
		t.Fatal(err)
	}
	ids, err := os.ReadFile(out + ".uid")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(ids)); len(got) < 2 || got[0] != "65534" || strings.Contains(" "+strings.Join(got[1:], " ")+" ", " 0 ") {
		t.Errorf("the build command ran as uid and groups %q, want uid 65534 and none of root's groups", got)
	}
}
