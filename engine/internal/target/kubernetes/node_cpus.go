package kubernetes

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// A service pod runs on a node, which need not be perfgate's machine.
var _ target.OnNode = (*instance)(nil)

// NodeCPUs is the CPUs the pod may use, against which a duet's shared-CPU
// rule holds both pods' use: the service's share of the node when the pod
// was placed (placement.go), else the CPU capacity of its node (whole
// CPUs, rounded up), 0 when the node cannot be read.
func (i *instance) NodeCPUs() int {
	if i.placed {
		return len(i.t.placement.Service)
	}
	return i.nodeCPUs
}

// nodeCPUs reads node's CPU capacity once per node and run; a node
// perfgate may not read (RBAC) is warned about once and counts 0. A duet
// starts both pods at once on one node: nodesMu, held across the read,
// makes the second start wait for the first's answer instead of reading
// (and warning) again.
func (t *Target) nodeCPUs(ctx context.Context, node string) int {
	t.nodesMu.Lock()
	defer t.nodesMu.Unlock()
	if n, known := t.nodes[node]; known {
		return n
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n := 0
	got, err := t.cluster.clientset.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Warn("could not read node %s's CPUs (%v): a duet's shared-CPU rule holds the pods' use against this machine's CPUs instead", node, err)
	} else {
		n = int(got.Status.Capacity.Cpu().Value())
	}
	if t.nodes == nil {
		t.nodes = map[string]int{}
	}
	t.nodes[node] = n
	return n
}
