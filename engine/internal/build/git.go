package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// Base is the resolved base tree (--base or --base-dir): a directory to
// build, and how to remove it when it is a temporary worktree.
type Base struct {
	Dir string
	// Ref and Commit are set when --base named a git revision; Top is
	// then the repository it was resolved in.
	Ref    string
	Commit string
	Top    string
	remove func() error
}

// Cleanup removes a temporary worktree; it does nothing for a directory.
func (b *Base) Cleanup() error {
	if b.remove == nil {
		return nil
	}
	return b.remove()
}

// BaseDir is --base-dir: a directory built as it is. It is a separate flag
// from --base so that a revision is never mistaken for a directory of the
// same name (a pull request could add one named after the merge base).
func BaseDir(dir string) (*Base, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("--base-dir %q is not a directory; pass the checkout of the base, or a git revision with --base", dir)
	}
	return &Base{Dir: dir}, nil
}

// ResolveBase turns --base, a git revision (commit, branch or tag) of the
// repository that holds head, into a tree: the commit checked out
// (detached) as a temporary worktree. It never looks for a directory of
// that name. The tree returned is the worktree's counterpart of head's
// directory, so a service in a subdirectory of its repository works.
func ResolveBase(ctx context.Context, rev, head string) (*Base, error) {
	return resolveRevision(ctx, "--base", ", or pass a directory with --base-dir", rev, head)
}

// ResolvePair is ResolveBase for perfgate run --pair-with: the revision a
// recording of the tree at src is paired with.
func ResolvePair(ctx context.Context, rev, src string) (*Base, error) {
	return resolveRevision(ctx, "--pair-with", "", rev, src)
}

// RevisionOf resolves rev in the repository that holds dir, for reading
// files as they are at that revision (ReadAtBase) without checking it out:
// perfgate sweep reads the base's perfgate.yml as the gate did.
func RevisionOf(ctx context.Context, flag, rev, dir string) (*Base, error) {
	commit, top, err := resolveCommit(ctx, flag, "", rev, dir)
	if err != nil {
		return nil, err
	}
	realTop, _ := filepath.EvalSymlinks(top)
	return &Base{Ref: rev, Commit: commit, Top: realTop}, nil
}

// resolveRevision is ResolveBase with the flag the revision came from and
// what else that flag's command accepts, for its errors.
func resolveRevision(ctx context.Context, flag, otherwise, rev, head string) (*Base, error) {
	commit, top, err := resolveCommit(ctx, flag, otherwise, rev, head)
	if err != nil {
		return nil, err
	}
	absHead, err := filepath.Abs(head)
	if err != nil {
		return nil, err
	}
	realTop, _ := filepath.EvalSymlinks(top)
	realHead, _ := filepath.EvalSymlinks(absHead)
	sub, err := filepath.Rel(realTop, realHead)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "perfgate-base-")
	if err != nil {
		return nil, err
	}
	if err := privilege.GiveToInvoker(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	worktree := filepath.Join(tmp, "tree")
	if _, err := git(ctx, top, "worktree", "add", "--detach", worktree, commit); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("check out %s %s as a worktree: %w", flag, rev, err)
	}
	remove := func() error {
		// A fresh context: cleanup must also run after cancellation.
		_, err := git(context.Background(), top, "worktree", "remove", "--force", worktree)
		os.RemoveAll(tmp)
		return err
	}
	return &Base{Dir: filepath.Join(worktree, sub), Ref: rev, Commit: commit, Top: realTop, remove: remove}, nil
}

// resolveCommit finds the repository that holds dir and rev's commit in
// it, refusing a revision git would read as an option.
func resolveCommit(ctx context.Context, flag, otherwise, rev, dir string) (commit, top string, err error) {
	if strings.HasPrefix(rev, "-") {
		return "", "", fmt.Errorf("%s %q starts with \"-\", which git would read as an option; pass a commit, branch or tag", flag, rev)
	}
	if top, err = git(ctx, dir, "rev-parse", "--show-toplevel"); err != nil {
		if otherwise != "" {
			return "", "", fmt.Errorf("%s %q is a git revision, but --head %s is not inside a git repository to resolve it in; pass the base's checkout with --base-dir instead", flag, rev, dir)
		}
		return "", "", fmt.Errorf("%s %q is a git revision, but %s is not inside a git repository to resolve it in", flag, rev, dir)
	}
	if commit, err = git(ctx, top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return "", "", fmt.Errorf("%s %q is not a commit, branch or tag of the repository at %s; fetch it first (git fetch origin %s)%s", flag, rev, top, rev, otherwise)
	}
	return commit, top, nil
}

// ErrNotAtBase says a file does not exist at the base revision (or lies
// outside its repository).
var ErrNotAtBase = errors.New("no copy at the base revision")

// ErrAddedByHead says the file is inside the repository but not at the
// base commit: the pull request adds it. errors.Is(err, ErrNotAtBase)
// holds for it too.
var ErrAddedByHead error = addedByHead{}

type addedByHead struct{}

func (addedByHead) Error() string        { return ErrNotAtBase.Error() }
func (addedByHead) Is(target error) bool { return target == ErrNotAtBase }

// ReadAtBase reads the file at path (as named on the command line, relative
// to the working directory) as it is in the base revision: `git show
// <commit>:<path within the repository>`. The path is mapped lexically, so
// a symlink the pull request added never redirects it. It returns
// ErrNotAtBase when --base was a directory or the path is outside the
// repository, and ErrAddedByHead when the file does not exist at that
// commit.
func (b *Base) ReadAtBase(ctx context.Context, path string) ([]byte, string, error) {
	if b.Commit == "" {
		return nil, "", ErrNotAtBase
	}
	abs := path
	if !filepath.IsAbs(path) {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, "", err
		}
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
		abs = filepath.Join(cwd, path)
	}
	rel, err := filepath.Rel(b.Top, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, "", fmt.Errorf("%s is outside the repository at %s (%w)", path, b.Top, ErrNotAtBase)
	}
	rel = filepath.ToSlash(rel)
	object := b.Commit + ":" + rel
	if _, err := git(ctx, b.Top, "cat-file", "-e", object); err != nil {
		return nil, rel, fmt.Errorf("%s does not exist at %s (%w)", rel, b.Commit[:min(12, len(b.Commit))], ErrAddedByHead)
	}
	cmd := exec.CommandContext(ctx, "git", "-C", b.Top, "show", object)
	privilege.AsInvoker(cmd)
	data, err := cmd.Output()
	if err != nil {
		return nil, rel, fmt.Errorf("git show %s: %w", object, err)
	}
	return data, rel, nil
}

// gitRevision is the commit checked out in dir and whether it has
// uncommitted changes; empty when dir is not in a git repository.
func gitRevision(ctx context.Context, dir string) (string, bool) {
	commit, err := git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return "", false
	}
	status, _ := git(ctx, dir, "status", "--porcelain", "--", ".")
	return commit, status != ""
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// As the checkout's owner under sudo: git trusts the repository, and
	// the worktree bookkeeping it writes into .git is not root's.
	privilege.AsInvoker(cmd)
	out, err := cmd.Output()
	if err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
