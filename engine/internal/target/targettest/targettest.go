// Package targettest holds what the targets' tests share (the test
// service and the checks for a Docker engine) and Fake, a target for the
// tests of what drives targets: the experiment loop and the gate.
package targettest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// BuildSvc compiles internal/target/testdata/svc statically (a scratch
// image has no C library) once per test binary and returns its path.
func BuildSvc(t *testing.T) string {
	t.Helper()
	source := filepath.Join(ModuleRoot(t), "internal", "target", "testdata", "svc")
	src, err := os.ReadFile(filepath.Join(source, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	// Named by its source, so a changed service is rebuilt, not reused.
	sum := sha256.Sum256(src)
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("perfgate-test-svc-%s-%x", runtime.GOARCH, sum[:6]))
	if _, err := os.Stat(bin); err != nil {
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = source
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build test service: %v\n%s", err, out)
		}
	}
	return bin
}

// ModuleRoot is the engine module's directory, found from the working
// directory, where go test runs a package's tests: not from the source
// file's path (runtime.Caller), which -trimpath builds (CI's end-to-end
// tests, to share the Action's compiled packages) do not keep.
func ModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod in the working directory or above it: run the tests with go test, in the engine module")
		}
		dir = parent
	}
}

// RequireDocker skips a test when no Docker engine answers, unless
// PERFGATE_REQUIRE_DOCKER=1 (scripts/test.sh starts an engine and sets
// it), where a missing engine is a failure. The docker target reads
// container cgroups, which needs root.
func RequireDocker(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the docker target reads container cgroups (root)")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		if os.Getenv("PERFGATE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("PERFGATE_REQUIRE_DOCKER=1 but `docker info` fails: %v (DOCKER_HOST=%q)", err, os.Getenv("DOCKER_HOST"))
		}
		t.Skip("no Docker engine answers; scripts/docker/up.sh starts one")
	}
}
