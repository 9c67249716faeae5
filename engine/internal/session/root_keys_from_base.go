package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
)

// rootKey is a perfgate.yml key whose value reaches root on this machine
// when the gate runs on its target, so a pull request must not choose it.
type rootKey struct {
	key, target string
	// why says how the value reaches root, for the warning and the error.
	why string
	// value shows the key's value, quoted ("" when unset); take sets it
	// from the base's.
	value func(*config.Config) string
	take  func(dst, base *config.Config)
}

var rootKeys = []rootKey{
	{
		key: "kind.node_image", target: "kind",
		why: "kind runs the node image as a privileged container (root on this machine)",
		value: func(c *config.Config) string {
			if c.Kind.NodeImage == "" {
				return ""
			}
			return fmt.Sprintf("%q", c.Kind.NodeImage)
		},
		take: func(dst, base *config.Config) { dst.Kind.NodeImage = base.Kind.NodeImage },
	},
	{
		key: "kubernetes.image_load", target: "kubernetes",
		why: "it runs as the invoker with their groups, and docker among them (a hosted runner's) is as good as root",
		value: func(c *config.Config) string {
			if len(c.Kubernetes.ImageLoad) == 0 {
				return ""
			}
			return fmt.Sprintf("%q", c.Kubernetes.ImageLoad)
		},
		take: func(dst, base *config.Config) { dst.Kubernetes.ImageLoad = base.Kubernetes.ImageLoad },
	},
}

// rootKeysFromBase makes the base revision's perfgate.yml decide each of
// rootKeys on its target: a changed value is replaced by the base's, with
// a warning, and a value in a perfgate.yml the base does not have (or
// cannot be read) is refused. The rest of kind: and kubernetes: stay
// head's (gateFromBase), and a kubeconfig from perfgate.yml may not run
// plugins as root (package kubernetes). Without a base revision
// (--base-dir) the directories are the user's own, and nothing changes.
func (g *invocation) rootKeysFromBase(ctx context.Context, base *build.Base, o GateOptions) error {
	if base.Commit == "" {
		return nil
	}
	var keys []rootKey
	for _, k := range rootKeys {
		if k.target == g.cfg.Target {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	short := base.Commit[:min(12, len(base.Commit))]
	// refuse refuses the first key head sets, for why.
	refuse := func(why string) error {
		for _, k := range keys {
			if head := k.value(g.cfg); head != "" {
				return configErrorf("%s: %s %s is set by the pull request, and %s; %s, so it must come from the base branch: set %s there first, or remove it here",
					o.ConfigPath, k.key, head, why, k.why, k.key)
			}
		}
		return nil
	}
	data, rel, err := base.ReadAtBase(ctx, o.ConfigPath)
	if errors.Is(err, build.ErrNotAtBase) {
		return refuse(fmt.Sprintf("the base revision %s has no copy of %s to take it from", short, o.ConfigPath))
	}
	if err != nil {
		return err
	}
	baseCfg, err := config.Parse(fmt.Sprintf("%s at %s", rel, short), data)
	if err != nil {
		return refuse(fmt.Sprintf("the base revision %s's %s cannot be read by this perfgate (%v)", short, rel, err))
	}
	for _, k := range keys {
		head, atBase := k.value(g.cfg), k.value(baseCfg)
		if head == atBase {
			continue
		}
		k.take(g.cfg, baseCfg)
		g.warn(fmt.Sprintf("this pull request changes %s in %s (%s -> %s); %s, so the gate uses the base revision %s's, and the change applies after it merges",
			k.key, rel, valueOrUnset(atBase), valueOrUnset(head), k.why, short))
	}
	g.rep.Config = g.cfg.Report()
	return nil
}

// valueOrUnset is a key's value in a warning: "unset" for none.
func valueOrUnset(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}
