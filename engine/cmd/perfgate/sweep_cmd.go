package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/target/docker"
	"github.com/perfgate/perfgate/engine/internal/target/kind"
	"github.com/perfgate/perfgate/engine/internal/target/kubernetes"
)

// sweepPart is one kind of resource perfgate creates, and the sweep its
// package owns: the same code the target runs when it starts.
type sweepPart struct {
	name string
	// tool is the command the sweep needs on PATH ("" for none); without
	// it perfgate cannot have made such resources here.
	tool  string
	sweep func(ctx context.Context, toolPath string) (owner.Swept, error)
}

// sweepCommand (`perfgate sweep`) removes what perfgate processes of this
// host identity left when they died without cleaning up (SIGKILL, a job
// timing out): the Action's post step runs it. Each target sweeps the same
// at its start; this does all of them at once, whatever the config's
// target.
func sweepCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "perfgate.yml whose kubernetes section (kubeconfig, context, namespace) says which cluster to sweep; without it, KUBECONFIG or ~/.kube/config")
	if !parseFlags(fs, args, stderr) {
		return exitConfig
	}
	return sweep(ctx, sweepParts(*configPath), stdout, stderr)
}

// sweepParts are the resources perfgate creates: cgroups (local target),
// Docker containers and images (docker), kind clusters (kind), and
// namespaces and objects on a Kubernetes cluster (kubernetes).
func sweepParts(configPath string) []sweepPart {
	return []sweepPart{
		{name: "cgroups", sweep: func(context.Context, string) (owner.Swept, error) {
			h, err := cgroup.Detect()
			if err != nil {
				return owner.Swept{}, err
			}
			return h.Sweep()
		}},
		{name: "docker", tool: "docker", sweep: docker.Sweep},
		{name: "kind", tool: "kind", sweep: kind.Sweep},
		{name: "kubernetes", sweep: func(ctx context.Context, _ string) (owner.Swept, error) {
			var settings config.Kubernetes
			if configPath != "" {
				cfg, err := config.Load(configPath)
				if err != nil {
					return owner.Swept{}, fmt.Errorf("%s does not load, so the cluster is unknown: %w", configPath, err)
				}
				settings = cfg.Kubernetes
			}
			return kubernetes.Sweep(ctx, settings)
		}},
	}
}

// sweep runs every part and lists, one line each, what it removed, what it
// skipped and why, and what it could not remove; only the last fails it.
func sweep(ctx context.Context, parts []sweepPart, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "perfgate sweep: removing what gone perfgate processes of host identity %s left\n", owner.Host())
	var failed []error
	for _, p := range parts {
		path := ""
		if p.tool != "" {
			var err error
			if path, err = exec.LookPath(p.tool); err != nil {
				fmt.Fprintf(stdout, "  %s: skipped, the %s command is not on PATH\n", p.name, p.tool)
				continue
			}
		}
		swept, err := p.sweep(ctx, path)
		for _, r := range swept.Removed {
			fmt.Fprintf(stdout, "  %s: removed %s\n", p.name, r)
		}
		for _, f := range swept.Failed {
			fmt.Fprintf(stderr, "  %s: FAILED: %v\n", p.name, f)
		}
		failed = append(failed, swept.Failed...)
		switch {
		case err != nil:
			fmt.Fprintf(stdout, "  %s: skipped, %v\n", p.name, err)
		case len(swept.Removed)+len(swept.Failed) == 0:
			fmt.Fprintf(stdout, "  %s: nothing to remove\n", p.name)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "perfgate sweep: %d leftover(s) could not be removed, each named above with the reason; remove them by hand, or run perfgate sweep again (as root where cgroups are concerned)\n", len(failed))
		return exitSweepLeftovers
	}
	return 0
}
