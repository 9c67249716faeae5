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

// logHeadBytes and logTailBytes bound what of one reset's output reaches
// its log: the command comes from the pull request, and one that prints
// without end must not fill the runner's disk. The start (what it did
// first) and the end (why it failed) are kept, and a line between them
// says how much was cut.
const (
	logHeadBytes = 64 << 10
	logTailBytes = 64 << 10
)

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
	capped := &cappedLog{w: log}
	cmd := exec.CommandContext(runCtx, c.Args[0], c.Args[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home}, c.Env...)
	cmd.Stdout = io.MultiWriter(capped, &tail)
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
	if flushErr := capped.flush(); err == nil && flushErr != nil {
		return fmt.Errorf("write the reset's log: %w", flushErr)
	}
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

// cappedLog passes the first logHeadBytes written to it on to w and keeps
// the last logTailBytes of the rest, which flush writes after a line
// saying how many bytes were left out.
type cappedLog struct {
	w       io.Writer
	written int64 // bytes passed on to w
	rest    []byte
	cut     int64 // bytes dropped from rest
	err     error
}

func (c *cappedLog) Write(p []byte) (int, error) {
	n := len(p)
	if c.err != nil {
		return n, nil // the command keeps running; flush reports the error
	}
	if room := logHeadBytes - c.written; room > 0 {
		head := p[:min(int64(len(p)), room)]
		_, c.err = c.w.Write(head)
		c.written += int64(len(head))
		p = p[len(head):]
	}
	c.rest = append(c.rest, p...)
	if len(c.rest) > 2*logTailBytes {
		drop := len(c.rest) - logTailBytes
		c.cut += int64(drop)
		c.rest = append(c.rest[:0], c.rest[drop:]...)
	}
	return n, nil
}

// flush writes what was kept of the output's end.
func (c *cappedLog) flush() error {
	if c.err != nil {
		return c.err
	}
	if len(c.rest) > logTailBytes {
		drop := len(c.rest) - logTailBytes
		c.cut += int64(drop)
		c.rest = c.rest[drop:]
	}
	if c.cut > 0 {
		if _, err := fmt.Fprintf(c.w, "\n[perfgate: %d bytes of service.reset's output left out here; the log keeps its first %d KiB and its last %d KiB]\n", c.cut, logHeadBytes>>10, logTailBytes>>10); err != nil {
			return err
		}
	}
	_, err := c.w.Write(c.rest)
	c.rest = nil
	return err
}
