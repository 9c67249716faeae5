package experiment

import (
	"context"
	"math"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// onNodeTarget is the fake target with its instances on a node of
// cpus CPUs (target.OnNode), as a cluster's pods are.
type onNodeTarget struct {
	*slowStarts
	cpus int
}

func (o onNodeTarget) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	inst, err := o.slowStarts.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return onNode{Instance: inst, cpus: o.cpus}, nil
}

type onNode struct {
	target.Instance
	cpus int
}

func (n onNode) NodeCPUs() int { return n.cpus }

// TestDuetOnAnotherMachineHoldsItsCPUUseAgainstTheNodes: a duet's
// shared-CPU rule divides both sides' CPU use by the CPUs they share. For
// pods on a cluster's node that is the node's CPUs, not those of the
// machine perfgate runs on; a node that cannot be read (0) falls back to
// the service CPUs perfgate knows.
func TestDuetOnAnotherMachineHoldsItsCPUUseAgainstTheNodes(t *testing.T) {
	for _, c := range []struct {
		node, service, want int
	}{{64, 2, 64}, {0, 3, 3}} {
		tg := onNodeTarget{slowStarts: newSlowStarts(0), cpus: c.node}
		cfg := duetConfig(t, 2, 2, 0)
		cfg.Profiles = nil
		l := runLoopWith(context.Background(), t, nil, cfg, true, nil, func(o *Options) { o.Target, o.ServiceCPUs = tg, c.service })
		if l.err != nil {
			t.Fatal(l.err)
		}
		for k := 0; k < len(l.runs); k += 2 {
			base, head := l.runs[k], l.runs[k+1]
			want := (base.Figures.CPUCores + head.Figures.CPUCores) / float64(c.want)
			if base.Duet.SharedCPUBusy == 0 || math.Abs(base.Duet.SharedCPUBusy-want) > 1e-9 {
				t.Errorf("node %d CPUs, service %d: round %d shared busy %.6f, want %.6f (both sides' use over %d CPUs)",
					c.node, c.service, base.Pair, base.Duet.SharedCPUBusy, want, c.want)
			}
		}
	}
}
