package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

// sweep removes containers and images that perfgate processes of this
// host identity left behind when they died without cleaning up (SIGKILL,
// a runner cancelled hard). Objects of live perfgate processes, and of
// other machines or containers sharing the engine, are left alone
// (owner.Judge). It returns one warning per object it could not remove.
func (t *Target) sweep(ctx context.Context) []string {
	var warnings []string
	judge := owner.Local()
	for _, kind := range []string{"container", "image"} {
		// Both are listed by ID and their owner read by inspect: `docker
		// image ls` cannot print a label.
		list := []string{kind, "ls", "--quiet", "--filter", "label=" + labelHost + "=" + t.host}
		if kind == "container" {
			list = append(list, "--all")
		}
		out, err := t.docker.run(ctx, list...)
		if err != nil {
			return append(warnings, fmt.Sprintf("could not look for leftovers of earlier perfgate runs: %v", err))
		}
		for _, id := range strings.Fields(out) {
			labels, err := t.docker.run(ctx, kind, "inspect", "--format", `{{index .Config.Labels "`+labelHost+`"}} {{index .Config.Labels "`+labelPID+`"}}`, id)
			if err != nil {
				continue
			}
			host, pidText, _ := strings.Cut(labels, " ")
			pid, err := strconv.Atoi(pidText)
			if err != nil || !judge.Stale(owner.Owner{Host: host, PID: pid}) {
				continue
			}
			remove := []string{kind, "rm", "--force", id}
			if kind == "container" {
				remove = []string{kind, "rm", "--force", "--volumes", id}
			}
			if _, err := t.docker.run(ctx, remove...); err != nil {
				warnings = append(warnings, fmt.Sprintf("could not remove %s %s left by an earlier perfgate run: %v", kind, id, err))
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
