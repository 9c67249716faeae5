package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// cli runs the docker command line, which honours DOCKER_HOST, contexts
// and the user's config exactly as the user's own docker commands do; as
// root, root's own config and a secure PATH (privilege.ToolEnv).
type cli struct {
	path string
}

// cliError is a docker command that failed, with what docker said.
type cliError struct {
	args   []string
	err    error
	stderr string
}

func (e *cliError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("docker %s: %s", strings.Join(e.args, " "), msg)
}

func (e *cliError) Unwrap() error { return e.err }

// run runs docker with args and returns its trimmed stdout.
func (c cli) run(ctx context.Context, args ...string) (string, error) {
	return c.runWithEnv(ctx, nil, args...)
}

// runWithEnv is run with env (KEY=VALUE) added to docker's own
// environment, for values passed by name (docker run --env NAME) that must
// not appear in a command line or an error.
func (c cli) runWithEnv(ctx context.Context, env []string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Env = append(privilege.ToolEnv(), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err() // interrupted, not a Docker failure
		}
		return "", &cliError{args: args, err: err, stderr: stderr.String()}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// runTo runs docker with its stdout and stderr written to w and e.
func (c cli) runTo(ctx context.Context, stdout, stderr io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Env = privilege.ToolEnv()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return &cliError{args: args, err: err}
	}
	return nil
}

// engineUnreachable tells a daemon that is not running (or not reachable)
// apart from other failures, so it becomes an infrastructure error that
// says how to start one.
func engineUnreachable(err error) bool {
	var ce *cliError
	if !errors.As(err, &ce) {
		return false
	}
	for _, sign := range []string{"Cannot connect to the Docker daemon", "Is the docker daemon running", "error during connect", "connect: no such file or directory", "connection refused", "permission denied while trying to connect"} {
		if strings.Contains(ce.stderr, sign) {
			return true
		}
	}
	return false
}
