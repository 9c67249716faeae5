package main

import (
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/session"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/docker"
	"github.com/perfgate/perfgate/engine/internal/target/kind"
	"github.com/perfgate/perfgate/engine/internal/target/kubernetes"
	"github.com/perfgate/perfgate/engine/internal/target/local"
)

// targets are every target perfgate runs a service on, by the name
// perfgate.yml's target gives them (config.Targets lists the same names).
var targets = session.Targets{
	"local": func(cfg *config.Config, l cgroup.Limits, out string) target.Target {
		return local.New(l, cfg.Service.Env["GOMAXPROCS"])
	},
	"docker": func(cfg *config.Config, l cgroup.Limits, out string) target.Target {
		return docker.New(l, cfg.Service.Env["GOMAXPROCS"])
	},
	"kubernetes": func(cfg *config.Config, l cgroup.Limits, out string) target.Target {
		return kubernetes.New("kubernetes", cfg.Kubernetes, l, cfg.Service.Env)
	},
	"kind": func(cfg *config.Config, l cgroup.Limits, out string) target.Target { return kind.New(cfg, l, out) },
}
