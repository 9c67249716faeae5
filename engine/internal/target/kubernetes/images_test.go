package kubernetes

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestImageLoadFromConfigRunsAsTheInvoker: kubernetes.image_load comes
// from perfgate.yml, which a pull request can change, so under sudo
// (SUDO_UID and SUDO_GID stand in for it; nobody exists everywhere) it runs
// as the invoker and can read the archive it is given; perfgate's own
// loader (the kind target's) runs as perfgate. The stand-in loader prints
// who it is and whether it read the archive, then fails so that ensure
// returns its output.
func TestImageLoadFromConfigRunsAsTheInvoker(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	binary := targettest.BuildSvc(t)
	load := []string{"sh", "-c", `echo "uid=$(id -u) groups=$(id -G)"; head -c 1 "$1" >/dev/null && echo "read the" "archive"; exit 1`, "sh", "{archive}"}
	for _, c := range []struct {
		asInvoker bool
		want      []string
	}{
		{true, []string{"uid=65534 groups=65534", "read the archive"}},
		{false, []string{"uid=0 ", "read the archive"}},
	} {
		m, err := newImages("perfgate", load, "perfgate-test-run", c.asInvoker)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(m.workDir) })
		_, err = m.ensure(context.Background(), "svc", binary)
		if err == nil {
			t.Fatal("the failing loader succeeded")
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("asInvoker %v: the loader said %v; want %q", c.asInvoker, err, w)
			}
		}
	}
}
