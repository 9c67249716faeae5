package kubernetes

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Driven from here, the node is this machine, so perfgate places the run
// as the local and docker targets do (target.Place): its own load
// generator pinned to some CPUs, the service containers' cpusets narrowed
// to the others, so that load generation never takes CPU from the
// measured pair. The kubelet's default CPU manager policy (none) leaves a
// container's cpuset alone once set, so the narrowing holds for the pod's
// life. Pods the in-cluster generator drives are not placed: the node is
// not this machine, or its pods' cgroups are not perfgate's to change.

// placeHere pins perfgate to the generator's share of its CPUs and
// records the split in the environment; Start narrows each service pod to
// the rest (placeOnServiceCPUs) and Close undoes the pin.
func (t *Target) placeHere() error {
	var err error
	t.placement, err = t.env.PlaceService(t.limits.CPUMillicores)
	if err != nil {
		return err
	}
	if t.placement.Service != nil {
		t.env.Confinement += fmt.Sprintf(", the service containers on CPUs %s and the load generator on %s (cpusets)",
			cgroup.FormatCPUs(t.placement.Service), cgroup.FormatCPUs(t.placement.Generator))
	}
	return nil
}

// placeOnServiceCPUs narrows the cpuset of i's container to the service's
// CPUs before it is measured. It fails rather than let a pod run beside
// the load generator unseen: the report says the pods were placed.
func (t *Target) placeOnServiceCPUs(i *instance) error {
	if !t.loadFromHere || t.placement.Service == nil {
		return nil
	}
	counters, ok := i.counters.(*cgroupCounters)
	if !ok {
		return fmt.Errorf("target %s: pod %s's cgroup is not readable on this machine, so it cannot be placed apart from the load generator; set kubernetes.load_from to cluster", t.name, i.pod.Name)
	}
	if err := counters.group.SetCPUs(t.placement.Service); err != nil {
		return fmt.Errorf("target %s: place pod %s on CPUs %s, apart from the load generator: %w; set kubernetes.load_from to cluster to drive the pods from the cluster instead", t.name, i.pod.Name, cgroup.FormatCPUs(t.placement.Service), err)
	}
	return nil
}

// servedCPUs is how many CPUs a duet's two pods share: the service's
// share when they are placed, else the node's.
func (d *drivenFromHere) servedCPUs() int {
	if n := len(d.in.t.placement.Service); n > 0 {
		return n
	}
	return d.in.NodeCPUs()
}

var _ target.OnNode = (*drivenFromHere)(nil)
