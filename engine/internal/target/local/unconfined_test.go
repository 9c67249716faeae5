package local

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestWithoutPrivilegeRunsUnconfinedAndSaysSo runs this test binary again
// as the unprivileged user nobody, where creating a cgroup fails.
func TestWithoutPrivilegeRunsUnconfinedAndSaysSo(t *testing.T) {
	if os.Getenv("PERFGATE_TEST_AS_NOBODY") == "1" {
		unprivilegedPrepare(t)
		return
	}
	if os.Geteuid() != 0 {
		unprivilegedPrepare(t)
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is needed to drop privileges")
	}
	self, _ := os.Executable()
	// t.TempDir's parent is private to root; nobody must reach the copy.
	dir, err := os.MkdirTemp("", "perfgate-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyOfSelf := filepath.Join(dir, "local.test")
	copyFile(t, self, copyOfSelf)
	svc := targettest.BuildSvc(t)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", copyOfSelf,
		"-test.run=^TestWithoutPrivilegeRunsUnconfinedAndSaysSo$", "-test.v")
	cmd.Env = append(os.Environ(), "PERFGATE_TEST_AS_NOBODY=1", "PERFGATE_TEST_SVC="+svc, "TMPDIR=/tmp", "HOME=/tmp")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func unprivilegedPrepare(t *testing.T) {
	tg := New(cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}, "")
	env, err := tg.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if env.Confinement != "unconfined" || len(env.Warnings) == 0 || !strings.HasPrefix(env.Warnings[0], "UNCONFINED") {
		t.Fatalf("environment %+v does not say it is unconfined", env)
	}
	// As nobody, the service built by the parent: the checkout may sit
	// below a directory nobody cannot read (a mktemp -d clone).
	svc := os.Getenv("PERFGATE_TEST_SVC")
	if svc == "" {
		svc = targettest.BuildSvc(t)
	}
	spec := specWith(t, svc, "ok")
	inst, err := tg.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	c, err := inst.Counters()
	if err != nil || c.Cgroup != nil || c.MaxRSSBytes == 0 {
		t.Fatalf("unconfined counters %+v, %v: want process figures and no cgroup", c, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
}
