package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// sweep removes containers and images that perfgate processes on this
// machine left behind when they died without cleaning up (SIGKILL, a
// runner cancelled hard). Objects of live perfgate processes, and of
// other machines sharing the engine, are left alone. It returns one
// warning per object it could not remove.
func (t *Target) sweep(ctx context.Context) []string {
	var warnings []string
	for _, kind := range []struct{ list, remove []string }{
		{[]string{"container", "ls", "--all"}, []string{"container", "rm", "--force", "--volumes"}},
		{[]string{"image", "ls"}, []string{"image", "rm", "--force"}},
	} {
		args := append(kind.list, "--filter", "label="+labelHost+"="+t.host, "--format", `{{.ID}} {{.Label "`+labelPID+`"}}`)
		if kind.list[0] == "image" {
			// `docker image ls` has no .Label; its owner is read below.
			args = append(kind.list, "--quiet", "--filter", "label="+labelHost+"="+t.host)
		}
		out, err := t.docker.run(ctx, args...)
		if err != nil {
			return append(warnings, fmt.Sprintf("could not look for leftovers of earlier perfgate runs: %v", err))
		}
		for _, line := range strings.Split(out, "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			id, owner := fields[0], ""
			if len(fields) > 1 {
				owner = fields[1]
			} else if owner, err = t.docker.run(ctx, "image", "inspect", "--format", `{{index .Config.Labels "`+labelPID+`"}}`, id); err != nil {
				continue
			}
			if pid, err := strconv.Atoi(owner); err == nil && alive(pid) {
				continue
			}
			if _, err := t.docker.run(ctx, append(kind.remove, id)...); err != nil {
				warnings = append(warnings, fmt.Sprintf("could not remove %s %s left by an earlier perfgate run: %v", kind.list[0], id, err))
			}
		}
	}
	return warnings
}

// removeLabelled removes every container carrying label (key=value).
func (t *Target) removeLabelled(ctx context.Context, label string) error {
	out, err := t.docker.run(ctx, "container", "ls", "--all", "--quiet", "--filter", "label="+label)
	if err != nil || out == "" {
		return err
	}
	var errs []error
	for _, id := range strings.Fields(out) {
		if _, err := t.docker.run(ctx, "container", "rm", "--force", "--volumes", id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// alive says whether a process with pid exists on this machine.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
