package kubernetes

import (
	"errors"
	"fmt"
	"io/fs"
	"math"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// When the node is this machine (a local cluster, kind's node container),
// perfgate places the run as the local and docker targets place theirs
// (target.SplitCPUs): the load generator on some of the node's CPUs, the
// service containers on the others, so that generating load never takes
// CPU from the measured pair. The load generator is perfgate itself
// (pinned by its affinity) and, unless perfgate drives the pods from
// here, the in-cluster generator's container (its cpuset narrowed). The
// service pods are bound to that node. The kubelet's default CPU manager
// policy (none) does not touch a container's cpuset once the container
// runs, so the narrowing holds for the pod's life, unless something else
// rewrites it (systemd re-applying a scope's properties could, on a node
// whose kubelet uses the systemd cgroup driver). Elsewhere, or without
// the right to change the pods' cgroups, nothing is placed and the
// report says so.

// placement is the run's split of the node's CPUs.
type placement struct {
	// Service and Generator are nil when nothing is placed; once
	// Generator is set, perfgate is pinned to it.
	Service, Generator []int
}

// undo restores perfgate's affinity from before the run was placed.
func (p placement) undo() error {
	if p.Generator == nil {
		return nil
	}
	return affinity.Unpin()
}

// placeRun splits the node's CPUs, read from the cgroup of the in-cluster
// load generator's container (its process generatorPid runs on node,
// which is this machine), pins perfgate to the generator's share and
// narrows that container to it too, which also proves that the pods'
// cpusets may be changed from here. Start then puts each service pod on
// the rest (placeOnServiceCPUs), and Close undoes perfgate's pin.
func (t *Target) placeRun(generatorPid int, node string) {
	notPlaced := func(why error) {
		t.warnings = append(t.warnings, fmt.Sprintf("the service pods share the node's CPUs with the load generator: %v", why))
	}
	generator, err := cgroup.OfProcess(generatorPid)
	if err != nil {
		notPlaced(fmt.Errorf("read the load generator's cgroup: %w", err))
		return
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
	if err := affinity.Pin(generatorCPUs); err != nil {
		notPlaced(fmt.Errorf("perfgate could not pin itself to the load generator's CPUs %s: %w", cgroup.FormatCPUs(generatorCPUs), err))
		return
	}
	p := placement{Service: service, Generator: generatorCPUs}
	if err := generator.SetCPUs(generatorCPUs); err != nil {
		_ = p.undo()
		if errors.Is(err, fs.ErrPermission) {
			err = fmt.Errorf("%w (run perfgate as root to place them apart)", err)
		}
		notPlaced(err)
		return
	}
	if need := int(math.Ceil(float64(t.limits.CPUMillicores) / 1000)); need > len(service) {
		t.warnings = append(t.warnings, fmt.Sprintf(
			"resources.cpu %dm needs %d CPUs but %d of the node's %d are left for the service after the load generator's; it cannot use its whole quota, so lower resources.cpu or run on a bigger machine",
			t.limits.CPUMillicores, need, len(service), len(nodeCPUs)))
	}
	t.placement, t.node = p, node
	t.env.ServiceCPUs, t.env.GeneratorCPUs = service, generatorCPUs
	t.env.Confinement += fmt.Sprintf(", the service containers on CPUs %s and the load generator on %s",
		cgroup.FormatCPUs(service), cgroup.FormatCPUs(generatorCPUs))
}

// placeOnServiceCPUs narrows the cpuset of i's container to the service's
// CPUs before it is measured. The pod is bound to the placed node, this
// machine, so a container that cannot be found or narrowed here fails
// the start: the report says the pods were placed.
func (t *Target) placeOnServiceCPUs(i *instance) error {
	if t.placement.Service == nil {
		return nil
	}
	counters, ok := i.counters.(*cgroupCounters)
	if !ok {
		_, _, err := containerCgroup(i.pod)
		return fmt.Errorf("target %s: pod %s on node %s: its container's cgroup is not readable on this machine (%w), so it cannot be placed apart from the load generator", t.name, i.pod.Name, i.pod.Spec.NodeName, err)
	}
	if err := counters.group.SetCPUs(t.placement.Service); err != nil {
		return fmt.Errorf("target %s: place pod %s on CPUs %s, apart from the load generator: %w", t.name, i.pod.Name, cgroup.FormatCPUs(t.placement.Service), err)
	}
	i.placed = true
	return nil
}
