package trend

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/session"
)

// Checkout is where the gates build: src is the service's directory in a
// git checkout holding both commits of every step (a full clone:
// fetch-depth 0 in CI), configPath its perfgate.yml.
type Checkout struct {
	Src        string
	ConfigPath string
	Target     string
	// Targets are the targets the gates may run the service on.
	Targets session.Targets
	// Stderr gets each gate's progress.
	Stderr io.Writer
}

// Gate is the real Gater: `perfgate gate --base <before>` with head a
// temporary worktree of after, the service's directory and perfgate.yml
// taken at the same place in it as in the checkout.
func (c Checkout) Gate(ctx context.Context, before, after, out string) (*report.Report, error) {
	rel, err := configWithin(c.Src, c.ConfigPath)
	if err != nil {
		return nil, err
	}
	head, err := build.ResolveBase(ctx, after, c.Src)
	if err != nil {
		return nil, fmt.Errorf("check out %s: %w", short(after), err)
	}
	defer func() {
		if err := head.Cleanup(); err != nil {
			fmt.Fprintf(c.Stderr, "perfgate trend: could not remove the worktree of %s: %v\n", short(after), err)
		}
	}()
	fmt.Fprintf(c.Stderr, "perfgate trend: paired gate %s (base) vs %s (head) → %s\n", short(before), short(after), out)
	return session.Gate(ctx, session.GateOptions{
		ConfigPath: filepath.Join(head.Dir, rel), Base: before, Head: head.Dir, Out: out, Target: c.Target, Targets: c.Targets,
		Command: []string{"perfgate", "gate", "--base", before, "--head", after, "--out", out},
		Stdout:  io.Discard, Stderr: c.Stderr,
	})
}

// configWithin is configPath relative to src. Either may be relative to
// the working directory: the Action passes --src absolute and --config
// relative to the directory it runs perfgate in, and filepath.Rel of an
// absolute and a relative path is an error (every confirmation failed so,
// issue 21).
func configWithin(src, configPath string) (string, error) {
	absSrc, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	absConfig, err := filepath.Abs(configPath)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absSrc, absConfig)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("--config %s is not inside --src %s: a confirming gate needs the config at each commit, so keep perfgate.yml in the service's directory", configPath, src)
	}
	return rel, nil
}

// Commits is the real Commits: git rev-list of the range in the checkout,
// along first parents only. A merged pull request is one commit of main
// (its merge); the commits on its branch were never reviewed as they
// stand, each carries its own perfgate.yml, and bisection builds and runs
// what it lists. A before that is not an ancestor of after on that line
// (history rewritten) leaves after alone in the range.
func (c Checkout) Commits(ctx context.Context, before, after string) ([]string, error) {
	for _, commit := range []string{before, after} {
		if err := c.git(ctx, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
			return nil, fmt.Errorf("commit %s is not in the checkout at %s; check out the full history (actions/checkout with fetch-depth: 0)", short(commit), c.Src)
		}
	}
	out, err := c.git(ctx, "rev-list", "--reverse", "--first-parent", "--ancestry-path", before+".."+after).Output()
	if err != nil {
		return nil, fmt.Errorf("list the commits from %s to %s: %w", short(before), short(after), err)
	}
	commits := strings.Fields(string(out))
	if len(commits) == 0 {
		return []string{after}, nil
	}
	return commits, nil
}

// git is a git command in the checkout, run as the checkout's owner under
// sudo (as the gates' own git runs, build.ResolveBase): git then trusts
// the repository without relying on SUDO_UID, and root reads nothing of
// it that its owner could not.
func (c Checkout) git(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", c.Src}, args...)...)
	privilege.AsInvoker(cmd)
	return cmd
}
