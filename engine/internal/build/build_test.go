package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// repoWithService makes a git repository whose service lives in svc/ and
// has two commits: "v1" answers one, the working tree answers two.
func repoWithService(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	svc := filepath.Join(top, "svc")
	write(t, filepath.Join(svc, "go.mod"), "module example.com/svc\n\ngo 1.24\n")
	write(t, filepath.Join(svc, "cmd/server/main.go"), "package main\n\nfunc main() { println(1) }\n")
	run(t, top, "git", "init", "-q")
	run(t, top, "git", "add", ".")
	run(t, top, "git", "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "v1")
	run(t, top, "git", "tag", "v1")
	write(t, filepath.Join(svc, "cmd/server/main.go"), "package main\n\nfunc main() { println(2) }\n")
	return top
}

func TestBaseAsGitRefBuildsInATemporaryWorktree(t *testing.T) {
	top := repoWithService(t)
	head := filepath.Join(top, "svc")
	base, err := ResolveBase(context.Background(), "v1", head)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(base.Dir, "/tree/svc") || base.Commit == "" {
		t.Fatalf("base = %+v, want the worktree's svc directory", base)
	}
	bin := filepath.Join(t.TempDir(), "base")
	b, err := Build(context.Background(), "base", base.Dir, "./cmd/server", report.ServiceBuild{}, bin)
	if err != nil {
		t.Fatal(err)
	}
	if out := run(t, "", bin); strings.TrimSpace(out) != "1" {
		t.Errorf("base binary printed %q, want the v1 code", out)
	}
	if !strings.Contains(b.BuildInfo, "-trimpath=true") || !strings.Contains(b.BuildInfo, "CGO_ENABLED=0") {
		t.Errorf("go version -m does not show the flags:\n%s", b.BuildInfo)
	}
	if b.Revision != base.Commit {
		t.Errorf("revision %q, want %q", b.Revision, base.Commit)
	}
	if err := base.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(base.Dir); !os.IsNotExist(err) {
		t.Errorf("worktree %s survived cleanup", base.Dir)
	}
	if out := run(t, top, "git", "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Errorf("git still lists the worktree:\n%s", out)
	}
}

func TestBaseThatIsNotARevision(t *testing.T) {
	top := repoWithService(t)
	_, err := ResolveBase(context.Background(), "no-such-branch", filepath.Join(top, "svc"))
	if err == nil || !strings.Contains(err.Error(), `--base "no-such-branch" is not a commit, branch or tag`) || !strings.Contains(err.Error(), "--base-dir") {
		t.Fatalf("err = %v", err)
	}
}

// A pull request can add a directory named after the merge base's SHA (or
// a branch); --base must still build the revision, never that directory.
func TestBaseRevisionIsNeverADirectoryOfTheSameName(t *testing.T) {
	top := repoWithService(t)
	sha := strings.TrimSpace(run(t, top, "git", "rev-parse", "v1"))
	for _, rev := range []string{sha, "v1"} {
		t.Run(rev, func(t *testing.T) {
			cwd := t.TempDir()
			write(t, filepath.Join(cwd, rev, "go.mod"), "module example.com/planted\n")
			t.Chdir(cwd)
			base, err := ResolveBase(context.Background(), rev, filepath.Join(top, "svc"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := base.Cleanup(); err != nil {
					t.Error(err)
				}
			})
			if base.Commit != sha || !strings.HasSuffix(base.Dir, "/tree/svc") {
				t.Fatalf("--base %s resolved to %+v, want the worktree of commit %s", rev, base, sha)
			}
		})
	}
}

func TestBaseDirMustBeADirectory(t *testing.T) {
	dir := t.TempDir()
	if b, err := BaseDir(dir); err != nil || b.Dir != dir || b.Commit != "" {
		t.Fatalf("BaseDir(%s) = %+v, %v", dir, b, err)
	}
	_, err := BaseDir(filepath.Join(dir, "missing"))
	if err == nil || !strings.Contains(err.Error(), "--base-dir") || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestBaseRefusesAnOptionLikeRevision(t *testing.T) {
	top := repoWithService(t)
	_, err := ResolveBase(context.Background(), "--output=/tmp/x", filepath.Join(top, "svc"))
	if err == nil || !strings.Contains(err.Error(), `starts with "-"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestBuildFailureCarriesCompilerOutput(t *testing.T) {
	top := repoWithService(t)
	write(t, filepath.Join(top, "svc/cmd/server/main.go"), "package main\n\nfunc main() { undefinedThing() }\n")
	_, err := Build(context.Background(), "head", filepath.Join(top, "svc"), "./cmd/server", report.ServiceBuild{}, filepath.Join(t.TempDir(), "head"))
	var be *Error
	if !errors.As(err, &be) || !strings.Contains(be.OutputTail, "undefined: undefinedThing") {
		t.Fatalf("err = %v, want a build error with the compiler's message", err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
