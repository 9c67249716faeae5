package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
)

// kindFromBase makes the base revision's perfgate.yml decide kind.node_image
// when the gate runs on target kind. kind starts that image as a
// privileged container of the Docker daemon, which is root on the host, so
// a pull request must not choose it: a changed node_image is replaced by
// the base's, with a warning, and a node_image in a perfgate.yml the base
// does not have (or cannot be read) is refused. The rest of kind: and
// kubernetes: stay head's (gateFromBase); kubernetes.image_load runs as the
// invoker and a kubeconfig from perfgate.yml may not run plugins as root
// (package kubernetes). Without a base revision (--base-dir) the
// directories are the user's own, and nothing changes.
func (g *invocation) kindFromBase(ctx context.Context, base *build.Base, o GateOptions) error {
	head := g.cfg.Kind.NodeImage
	if base.Commit == "" || g.cfg.Target != "kind" {
		return nil
	}
	short := base.Commit[:min(12, len(base.Commit))]
	refuse := func(why string) error {
		return configErrorf("%s: kind.node_image %q is set by the pull request, and %s; kind runs the node image as a privileged container (root on this machine), so it must come from the base branch: set kind.node_image there first, or remove it here to use kind's default",
			o.ConfigPath, head, why)
	}
	data, rel, err := base.ReadAtBase(ctx, o.ConfigPath)
	if errors.Is(err, build.ErrNotAtBase) {
		if head == "" {
			return nil
		}
		return refuse(fmt.Sprintf("the base revision %s has no copy of %s to take it from", short, o.ConfigPath))
	}
	if err != nil {
		return err
	}
	baseCfg, err := config.Parse(fmt.Sprintf("%s at %s", rel, short), data)
	if err != nil {
		if head == "" {
			return nil
		}
		return refuse(fmt.Sprintf("the base revision %s's %s cannot be read by this perfgate (%v)", short, rel, err))
	}
	if baseCfg.Kind.NodeImage == head {
		return nil
	}
	g.cfg.Kind.NodeImage = baseCfg.Kind.NodeImage
	g.rep.Config = g.cfg.Report()
	g.warn(fmt.Sprintf("this pull request changes kind.node_image in %s (%q -> %q); kind runs it as a privileged container, so the gate uses the base revision %s's, and the change applies after it merges",
		rel, baseCfg.Kind.NodeImage, head, short))
	return nil
}
