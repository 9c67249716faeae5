package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

// Sweep removes the containers and images that perfgate processes of this
// host identity left behind when they died without cleaning up (SIGKILL,
// a runner cancelled hard). Objects of live perfgate processes, and of
// other machines or containers sharing the engine, are left alone
// (owner.Judge). It is the docker target's start-up sweep and part of
// `perfgate sweep`; dockerPath is the docker command. The error says it
// could not look (no engine answering).
func Sweep(ctx context.Context, dockerPath string) (owner.Swept, error) {
	return sweep(ctx, cli{path: dockerPath}, owner.Local())
}

func sweep(ctx context.Context, docker cli, judge owner.Judge) (owner.Swept, error) {
	var swept owner.Swept
	for _, kind := range []string{"container", "image"} {
		// Both are listed by ID and their owner read by inspect: `docker
		// image ls` cannot print a label.
		list := []string{kind, "ls", "--quiet", "--filter", "label=" + labelHost + "=" + judge.Host}
		if kind == "container" {
			list = append(list, "--all")
		}
		out, err := docker.run(ctx, list...)
		if err != nil {
			return swept, fmt.Errorf("could not look for leftovers of earlier perfgate runs: %w", err)
		}
		for _, id := range strings.Fields(out) {
			labels, err := docker.run(ctx, kind, "inspect", "--format", `{{index .Config.Labels "`+labelHost+`"}} {{index .Config.Labels "`+labelPID+`"}}`, id)
			if err != nil {
				continue // removed meanwhile
			}
			host, pidText, _ := strings.Cut(labels, " ")
			pid, err := strconv.Atoi(pidText)
			o := owner.Owner{Host: host, PID: pid}
			if err != nil || !judge.Stale(o) {
				continue
			}
			remove := []string{kind, "rm", "--force", id}
			if kind == "container" {
				remove = []string{kind, "rm", "--force", "--volumes", id}
			}
			if _, err := docker.run(ctx, remove...); err != nil {
				swept.Failed = append(swept.Failed, fmt.Errorf("could not remove %s %s left by an earlier perfgate run: %w", kind, id, err))
			} else {
				swept.Removed = append(swept.Removed, fmt.Sprintf("docker %s %s (left by perfgate %s)", kind, id, o))
			}
		}
	}
	return swept, nil
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
