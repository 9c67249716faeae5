package trend

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
)

// TestTrendGitRunsAsTheInvoker: trend's own git (listing a step's commits
// in the checkout) runs as the user who ran `sudo perfgate trend`, never
// as root: the checkout and its .git config are theirs, and a repository's
// git config (core.fsmonitor, hooks) must not run as root. SUDO_UID and
// SUDO_GID stand in for sudo; nobody exists everywhere.
func TestTrendGitRunsAsTheInvoker(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	c := Checkout{Src: "/"}
	cmd := c.git(context.Background(), "version")
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Credential == nil || cmd.SysProcAttr.Credential.Uid != 65534 || cmd.SysProcAttr.Credential.Gid != 65534 {
		t.Fatalf("git runs with %+v, want uid and gid 65534", cmd.SysProcAttr)
	}
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "git version") {
		t.Errorf("git version as the invoker: %q, %v", out, err)
	}
}
