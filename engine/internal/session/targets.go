package session

import (
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// MakeTarget makes the target a config names, for one invocation; out is
// the results directory (kind keeps its logs there when the cluster
// fails).
type MakeTarget func(cfg *config.Config, limits cgroup.Limits, out string) target.Target

// Targets are the targets a service can run on, by the name perfgate.yml's
// target gives them. The command passes its own (cmd/perfgate/targets.go)
// rather than this package importing every target: the cluster targets
// bring client-go's hundreds of packages, which this package's tests, and
// trend's, would otherwise compile and link for nothing.
type Targets map[string]MakeTarget
