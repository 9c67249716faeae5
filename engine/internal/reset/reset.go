// Package reset runs service.reset, the command that brings the service's
// dependencies (a database, a queue) back to one known state before every
// duet round and every sequential run, so that base and head meet the same
// rows and a run does not inherit what the run before it wrote.
//
// The command comes from the pull request's perfgate.yml, so it is treated
// like the service: it runs as the service's unprivileged user, with the
// service's environment (PATH, a private HOME and TMPDIR, service.env) and
// nothing else of perfgate's, in its own process group that a timeout
// kills whole.
package reset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// tailBytes is how much of the end of a failed reset's output its error
// carries: the psql or migration tool's message, not a whole log.
const tailBytes = 2048

// Command is one configured reset.
type Command struct {
	// Args is argv: the program and its arguments, run without a shell.
	Args []string
	// Dir is the tree the command runs in: the head's (the tree
	// perfgate.yml and its relative paths belong to), the same for both
	// sides so that both meet the same reset.
	Dir string
	// Env is service.env as KEY=VALUE (config.Config.ResetEnv).
	Env     []string
	Timeout time.Duration
	// User runs the command when perfgate is root (privilege.ServiceUser);
	// nil runs it as perfgate's own user.
	User *privilege.User
}

// Failure is a reset that did not succeed: the run or round it preceded is
// invalid, never a regression.
type Failure struct {
	// Reason says what happened: an exit status, a timeout, a program
	// that could not be started.
	Reason string
	// Tail is the end of the command's output (stdout and stderr), text
	// from the command: render escapes it where it reaches Markdown.
	Tail string
}

func (f *Failure) Error() string {
	if f.Tail == "" {
		return "service.reset " + f.Reason
	}
	return fmt.Sprintf("service.reset %s; last lines of its output:\n%s", f.Reason, f.Tail)
}

// Run runs the command to completion and copies its output to log. It
// returns a *Failure when the command fails or times out, and ctx's error
// when perfgate itself is stopping.
func (c Command) Run(ctx context.Context, log io.Writer) error {
	home, err := os.MkdirTemp("", "perfgate-reset-")
	if err != nil {
		return fmt.Errorf("make the reset's home directory: %w", err)
	}
	defer os.RemoveAll(home)
	if c.User != nil {
		if err := os.Chown(home, c.User.UID, c.User.GID); err != nil {
			return fmt.Errorf("give the reset's home directory to %s: %w", c.User, err)
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	var tail tailBuffer
	cmd := exec.CommandContext(runCtx, c.Args[0], c.Args[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home}, c.Env...)
	cmd.Stdout = io.MultiWriter(log, &tail)
	cmd.Stderr = cmd.Stdout
	// Its own process group, so a timeout also ends what a shell started;
	// Pdeathsig so it does not outlive a perfgate killed with SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if c.User != nil {
		// Groups empty: root's supplementary groups must not come along.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(c.User.UID), Gid: uint32(c.User.GID), Groups: []uint32{}}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	began := time.Now()
	err = cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	f := &Failure{Tail: tail.String()}
	var exitErr *exec.ExitError
	switch {
	case runCtx.Err() != nil:
		f.Reason = fmt.Sprintf("did not finish within service.reset_timeout (%v): %s was killed", c.Timeout, c.Args[0])
	case errors.As(err, &exitErr):
		f.Reason = fmt.Sprintf("failed after %v: %s %s", time.Since(began).Round(time.Millisecond), c.Args[0], exitErr.ProcessState)
	default:
		f.Reason = fmt.Sprintf("could not run %s in %s%s: %v", c.Args[0], c.Dir, c.asWhom(), err)
		if c.User != nil && errors.Is(err, fs.ErrPermission) {
			f.Reason += "; that user must be able to enter the tree and run the program: run perfgate through sudo as the tree's owner, or make the tree and its parents readable (chmod o+rx)"
		}
	}
	return f
}

// asWhom names the user a reset runs as, for messages about what that
// user may not do (enter the tree, find the program).
func (c Command) asWhom() string {
	if c.User == nil {
		return ""
	}
	return " as " + c.User.String() + " (the service's user)"
}

// tailBuffer keeps the last tailBytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

// String is the kept output, cut to tailBytes at a line start when it can be.
func (t *tailBuffer) String() string {
	b := bytes.TrimSpace(t.b)
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
		return "…\n" + string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
