package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/privilege"
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
// timing out): the Action's post step runs it, as root under sudo, with
// the pull request's perfgate.yml. So it touches only what the target it
// sweeps can have made (--target, else the target the gate measured on: the
// base revision's perfgate.yml with --base, as gate reads it, else the
// config's): a Kubernetes cluster only for target kubernetes, since
// connecting loads a kubeconfig that the config may name; the kubernetes
// target's own rules for that kubeconfig apply (kubernetes.Sweep). A pull
// request that sets target: kubernetes in a gate the base measured on
// local so makes the sweep load no kubeconfig.
func sweepCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "perfgate.yml: its target says what to sweep, and for target kubernetes its kubernetes section (kubeconfig, context, namespace) says which cluster; without it, KUBECONFIG or ~/.kube/config")
	targetName := fs.String("target", "", "the target whose leftovers to remove: local (cgroups), docker, kind or kubernetes; default the config's target, and without a config cgroups, Docker and kind (never a cluster)")
	baseRev := fs.String("base", "", "the git revision the gate measured against (its --base): the target comes from that revision's copy of --config, as the gate's did, when it has one")
	if !parseFlags(fs, args, stderr) {
		return exitConfig
	}
	targetFromBase, partsConfig := "", *configPath
	if *baseRev != "" && *targetName == "" && *configPath != "" {
		var err error
		if targetFromBase, err = baseTarget(ctx, *baseRev, *configPath); err != nil {
			// What the gate measured on is unknown: sweep what needs no
			// config, never a cluster, rather than trust head's target.
			fmt.Fprintf(stderr, "perfgate sweep: %v; sweeping cgroups, Docker and kind, not a cluster\n", err)
			partsConfig = ""
		}
	}
	parts, err := sweepPartsFor(firstNonEmpty(*targetName, targetFromBase), partsConfig)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate sweep: %v\n", err)
		return exitConfig
	}
	return sweep(ctx, parts, stdout, stderr)
}

// baseTarget is the target of the base revision's copy of configPath, as
// gate --base takes it ("" when the base has no copy: the gate then
// measured on head's, and so does the sweep).
func baseTarget(ctx context.Context, rev, configPath string) (string, error) {
	// The directory's real path, as the repository's top is resolved (a
	// workspace reached through a link); the file's name stays as given,
	// as gate maps it.
	abs, err := filepath.Abs(configPath)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	base, err := build.RevisionOf(ctx, "--base", rev, dir)
	if err != nil {
		return "", err
	}
	data, rel, err := base.ReadAtBase(ctx, filepath.Join(dir, filepath.Base(abs)))
	if errors.Is(err, build.ErrNotAtBase) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	cfg, err := config.Parse(fmt.Sprintf("%s at %s", rel, base.Commit[:min(12, len(base.Commit))]), data)
	if err != nil {
		return "", fmt.Errorf("the base revision's %s does not load, so what to sweep is unknown: %w; pass --target", rel, err)
	}
	return cfg.Target, nil
}

// sweepPartsFor picks the parts for targetName, or the config's target
// when targetName is empty. The config is read only for its target and,
// for target kubernetes, its kubernetes section.
func sweepPartsFor(targetName, configPath string) ([]sweepPart, error) {
	var settings config.Kubernetes
	if configPath != "" && (targetName == "" || targetName == "kubernetes") {
		cfg, err := config.Load(configPath)
		if err != nil {
			return nil, fmt.Errorf("%s does not load, so what to sweep is unknown: %w; pass --target", configPath, err)
		}
		targetName = firstNonEmpty(targetName, cfg.Target)
		settings = cfg.Kubernetes
	}
	all := sweepParts(settings)
	names := map[string][]string{
		"":           {"cgroups", "docker", "kind"},
		"local":      {"cgroups"},
		"docker":     {"cgroups", "docker"},
		"kind":       {"cgroups", "kind"},
		"kubernetes": {"cgroups", "kubernetes"},
	}[targetName]
	if names == nil {
		return nil, fmt.Errorf("--target %q is not a target; use one of %v", targetName, config.Targets)
	}
	var parts []sweepPart
	for _, p := range all {
		if slices.Contains(names, p.name) {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// sweepParts are the resources perfgate creates: cgroups (local target,
// and perfgate's own load generator), Docker containers and images
// (docker), kind clusters (kind), and namespaces and objects on a
// Kubernetes cluster (kubernetes, the cluster of settings).
func sweepParts(settings config.Kubernetes) []sweepPart {
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
			if path, err = privilege.Tool(p.tool); errors.Is(err, exec.ErrNotFound) {
				fmt.Fprintf(stdout, "  %s: skipped, the %s command is not installed (%v)\n", p.name, p.tool, err)
				continue
			} else if err != nil {
				fmt.Fprintf(stdout, "  %s: skipped, %v\n", p.name, err)
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
