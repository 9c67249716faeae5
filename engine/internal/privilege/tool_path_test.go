package privilege

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootToolIgnoresAUserWritablePath: as root, a `sh` planted in a
// directory earlier on PATH (as a pull request's build could plant a
// `docker` in ~/go/bin) is never the tool perfgate runs; the system's is.
func TestRootToolIgnoresAUserWritablePath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the secure PATH applies to root only")
	}
	planted := t.TempDir()
	fake := filepath.Join(planted, "sh")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+filepath.Join(planted, "ran")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", planted+string(os.PathListSeparator)+os.Getenv("PATH"))
	got, err := Tool("sh")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(got, planted) {
		t.Fatalf("Tool(sh) = %s: root would run the planted one", got)
	}
	t.Setenv("HOME", planted)
	t.Setenv("DOCKER_CONFIG", planted)
	for _, kv := range ToolEnv() {
		if strings.HasPrefix(kv, "PATH=") && kv != "PATH="+SecurePath {
			t.Errorf("the tool's environment has %s, want PATH=%s", kv, SecurePath)
		}
		// A docker config the job's user can write names helpers and
		// hooks that docker would run as root.
		if kv == "HOME="+planted || strings.HasPrefix(kv, "DOCKER_CONFIG=") {
			t.Errorf("the tool's environment keeps %s", kv)
		}
	}
}

// TestRootToolRefusesPathsOthersCanChange: an absolute path is taken only
// when root alone can change the file and every directory above it.
func TestRootToolRefusesPathsOthersCanChange(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := rootTool(sh, SecurePath); err != nil {
		t.Errorf("the system's %s is refused: %v", sh, err)
	}

	// A directory of its own under a root-only parent: /tmp itself is
	// world-writable, which alone refuses anything under it.
	parent, err := os.MkdirTemp("/root", "perfgate-tool-")
	if err != nil {
		t.Skip("no /root to make a root-only directory in:", err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(parent, "docker")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := rootTool(tool, SecurePath); err != nil {
		t.Fatalf("a root-only tool is refused: %v", err)
	}
	for _, c := range []struct {
		name string
		make func() error
		want string
	}{
		{"file writable by others", func() error { return os.Chmod(tool, 0o777) }, "writable by group or others"},
		{"file owned by a user", func() error { return os.Chown(tool, 65534, 65534) }, "belongs to uid 65534"},
		{"directory owned by a user", func() error { return os.Chown(parent, 65534, 65534) }, "belongs to uid 65534"},
		{"directory writable by group", func() error { return os.Chmod(parent, 0o775) }, "writable by group or others"},
	} {
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		_, err := rootTool(tool, SecurePath)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "root-owned directory") {
			t.Errorf("%s: err = %v, want one saying %q and how to fix it", c.name, err, c.want)
		}
		// Back to root-only for the next case.
		_ = os.Chmod(tool, 0o755)
		_ = os.Chown(tool, 0, 0)
		_ = os.Chown(parent, 0, 0)
		_ = os.Chmod(parent, 0o755)
	}

	// Through a link: what it leads to counts.
	link := filepath.Join(parent, "kind")
	target := filepath.Join(t.TempDir(), "kind")
	if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := rootTool(link, SecurePath); err == nil {
		t.Errorf("a link into the world-writable /tmp is accepted")
	}

	if _, err := rootTool("no-such-perfgate-tool", SecurePath); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("a missing tool: %v, want exec.ErrNotFound", err)
	}
}
