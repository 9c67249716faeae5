package target

import (
	"fmt"
	"math"
	"strconv"

	"github.com/perfgate/perfgate/engine/internal/affinity"
)

// SplitCPUs gives the service the last CPUs (as many as its limit rounds
// up to, leaving at least one) and the load generator the rest, so the two
// never compete for a core. With one CPU nothing is pinned. Every target
// places the service this way: a process, a container's --cpuset-cpus.
func SplitCPUs(allowed []int, cpuCores float64) (service, generator []int) {
	if len(allowed) < 2 {
		return nil, nil
	}
	n := int(math.Ceil(cpuCores))
	n = max(1, min(n, len(allowed)-1))
	return allowed[len(allowed)-n:], allowed[:len(allowed)-n]
}

// ChooseGOMAXPROCS is the GOMAXPROCS the service runs with: the CPU limit
// rounded up, unless service.env sets it (fromServiceEnv), which wins. A
// value above the limit is allowed with a warning, since it is sometimes
// the thing being measured.
func ChooseGOMAXPROCS(cpuMillicores int64, fromServiceEnv string) (n int, source, warning string, err error) {
	if fromServiceEnv == "" {
		return max(1, int(math.Ceil(float64(cpuMillicores)/1000))), "set from the CPU limit", "", nil
	}
	n, err = strconv.Atoi(fromServiceEnv)
	if err != nil || n < 1 {
		return 0, "", "", fmt.Errorf("service.env: GOMAXPROCS=%q is not a positive integer; remove it to let perfgate match it to resources.cpu", fromServiceEnv)
	}
	if int64(n)*1000 > cpuMillicores {
		warning = fmt.Sprintf("GOMAXPROCS=%d (from service.env) is above the CPU limit of %g cores: the service will be throttled in bursts", n, float64(cpuMillicores)/1000)
	}
	return n, "set by service.env", warning, nil
}

// Placement is where the service and perfgate's load generator run.
type Placement struct {
	// Service and Generator are nil when nothing is pinned (one CPU).
	Service, Generator []int
}

// Place splits perfgate's CPUs between the service and the load generator
// (SplitCPUs) and pins perfgate to the generator's share. The warnings say
// when the split leaves the service less than its limit or nothing at all.
func Place(cpuMillicores int64) (Placement, []string, error) {
	allowed, err := affinity.Allowed()
	if err != nil {
		return Placement{}, nil, fmt.Errorf("read CPU affinity: %w", err)
	}
	service, generator := SplitCPUs(allowed, float64(cpuMillicores)/1000)
	if service == nil {
		return Placement{}, []string{"only one CPU is available: the service and the load generator share it, so load generation steals CPU from the service"}, nil
	}
	var warnings []string
	if need := int(math.Ceil(float64(cpuMillicores) / 1000)); need > len(service) {
		warnings = append(warnings, fmt.Sprintf(
			"resources.cpu %gm needs %d CPUs but %d of the %d available are left for the service after the load generator's; it cannot use its whole quota, so lower resources.cpu or run on a bigger machine",
			float64(cpuMillicores), need, len(service), len(allowed)))
	}
	if err := affinity.Pin(generator); err != nil {
		return Placement{}, warnings, err
	}
	return Placement{Service: service, Generator: generator}, warnings, nil
}

// Undo restores perfgate's affinity from before Place.
func (p Placement) Undo() error {
	if p.Generator == nil {
		return nil
	}
	return affinity.Unpin()
}

// SizeGOMAXPROCS chooses the service's GOMAXPROCS (ChooseGOMAXPROCS) and
// records it, with its source and any warning, in the environment.
func (env *Environment) SizeGOMAXPROCS(cpuMillicores int64, fromServiceEnv string) (int, error) {
	n, source, warning, err := ChooseGOMAXPROCS(cpuMillicores, fromServiceEnv)
	if err != nil {
		return 0, err
	}
	if warning != "" {
		env.Warnings = append(env.Warnings, warning)
	}
	env.GOMAXPROCS, env.GOMAXPROCSSource = n, source
	return n, nil
}

// PlaceService places the service apart from the load generator (Place)
// and records the CPU sets and any warning in the environment.
func (env *Environment) PlaceService(cpuMillicores int64) (Placement, error) {
	placement, warnings, err := Place(cpuMillicores)
	env.Warnings = append(env.Warnings, warnings...)
	if err != nil {
		return Placement{}, err
	}
	env.ServiceCPUs, env.GeneratorCPUs = placement.Service, placement.Generator
	return placement, nil
}
