package kubernetes

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// When the node is this machine (a local cluster, kind's node container),
// perfgate places the run as the local and docker targets place theirs
// (target.SplitCPUs): the load generator on some of the node's CPUs, the
// service containers on the others, so that generating load never takes
// CPU from the measured pair. The generator is the in-cluster one (its
// container's cpuset narrowed) or perfgate itself when it drives the pods
// from here (its affinity). The kubelet's default CPU manager policy
// (none) leaves a container's cpuset alone once the container runs, so
// the narrowing holds for the pod's life. Elsewhere, or without the right
// to change the pods' cgroups, nothing is placed and the report says so.

// placement is the run's split of the node's CPUs.
type placement struct {
	// Service and Generator are nil when nothing is placed.
	Service, Generator []int
	// selfAffinity is perfgate's affinity before it was pinned as the
	// load generator (driven from here), restored by undo.
	selfAffinity []int
}

// undo restores perfgate's affinity from before the run was placed.
func (p placement) undo() error {
	if p.selfAffinity == nil {
		return nil
	}
	return target.PinSelf(p.selfAffinity)
}

// placeRun splits the node's CPUs, read from the cgroup of the in-cluster
// load generator's container (generator, on this machine), and puts the
// load generator on its share: that container always, which also proves
// that the pods' cpusets may be changed from here, and perfgate itself
// when it drives the pods. Start puts each service pod on the rest
// (placeOnServiceCPUs), and Close undoes perfgate's pin.
func (t *Target) placeRun(generator *cgroup.Group) {
	notPlaced := func(why error) {
		t.warnings = append(t.warnings, fmt.Sprintf("the service pods share the node's CPUs with the load generator: %v", why))
	}
	nodeCPUs, err := generator.CPUs()
	if err != nil {
		notPlaced(err)
		return
	}
	service, generatorCPUs := target.SplitCPUs(nodeCPUs, float64(t.limits.CPUMillicores)/1000)
	if service == nil {
		notPlaced(fmt.Errorf("the node has only CPU %s", cgroup.FormatCPUs(nodeCPUs)))
		return
	}
	if need := int(math.Ceil(float64(t.limits.CPUMillicores) / 1000)); need > len(service) {
		t.warnings = append(t.warnings, fmt.Sprintf(
			"resources.cpu %dm needs %d CPUs but %d of the node's %d are left for the service after the load generator's; it cannot use its whole quota, so lower resources.cpu or run on a bigger machine",
			t.limits.CPUMillicores, need, len(service), len(nodeCPUs)))
	}
	if err := generator.SetCPUs(generatorCPUs); err != nil {
		notPlaced(fmt.Errorf("%w (run perfgate as root to place them apart)", err))
		return
	}
	p := placement{Service: service, Generator: generatorCPUs}
	how := "the load generator's container"
	if t.loadFromHere {
		if p.selfAffinity, err = target.AllowedCPUs(); err == nil {
			err = target.PinSelf(generatorCPUs)
		}
		if err != nil {
			_ = p.undo()
			notPlaced(fmt.Errorf("perfgate could not pin itself to CPUs %s as the load generator: %w", cgroup.FormatCPUs(generatorCPUs), err))
			return
		}
		how = "perfgate, the load generator,"
	}
	t.placement = p
	t.env.ServiceCPUs, t.env.GeneratorCPUs = service, generatorCPUs
	t.env.Confinement += fmt.Sprintf(", the service containers on CPUs %s and %s on %s",
		cgroup.FormatCPUs(service), how, cgroup.FormatCPUs(generatorCPUs))
}

// placeOnServiceCPUs narrows the cpuset of i's container to the service's
// CPUs before it is measured. A pod on another node than the generator's
// (a cluster of several, driven from the cluster) is not placed, with a
// warning; a pod here that cannot be placed fails the start, since the
// report says the pods were placed and placing the generator worked.
func (t *Target) placeOnServiceCPUs(i *instance) error {
	if t.placement.Service == nil {
		return nil
	}
	counters, ok := i.counters.(*cgroupCounters)
	if !ok {
		t.Warn("pod %s runs on node %s, not this machine: it shares its node's CPUs with whatever runs there", i.pod.Name, i.pod.Spec.NodeName)
		return nil
	}
	if err := counters.group.SetCPUs(t.placement.Service); err != nil {
		return fmt.Errorf("target %s: place pod %s on CPUs %s, apart from the load generator: %w", t.name, i.pod.Name, cgroup.FormatCPUs(t.placement.Service), err)
	}
	i.placed = true
	return nil
}
