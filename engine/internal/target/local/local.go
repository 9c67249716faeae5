// Package local runs the service as a process on this machine, confined by
// a cgroup (v2 or v1) and pinned to CPUs apart from the load generator.
package local

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Target is the local target. The zero value is not usable; call New.
type Target struct {
	limits cgroup.Limits
	// userGOMAXPROCS is GOMAXPROCS from service.env, which wins over the
	// value derived from the CPU limit.
	userGOMAXPROCS string

	hierarchy  *cgroup.Hierarchy // nil when unconfined
	env        target.Environment
	gomaxprocs int
	placement  target.Placement

	live target.Live[*process]
	target.Warner
}

// New returns a local target that confines each service process to the
// given limits. userGOMAXPROCS is service.env's GOMAXPROCS, or "".
func New(limits cgroup.Limits, userGOMAXPROCS string) *Target {
	return &Target{limits: limits, userGOMAXPROCS: userGOMAXPROCS}
}

func (t *Target) Name() string { return "local" }

// Prepare finds the cgroup hierarchy, proves it can create a group with the
// limits, and pins perfgate (the load generator) apart from the service.
// Without cgroups it carries on unconfined and says so in the warnings.
func (t *Target) Prepare(ctx context.Context) (target.Environment, error) {
	t.env = target.Environment{Target: "local", Limits: t.limits, Confinement: "unconfined"}
	if h, readBack, err := t.probeCgroups(); err != nil {
		t.env.Warnings = append(t.env.Warnings, fmt.Sprintf(
			"UNCONFINED: the service runs without CPU and memory limits because perfgate could not create a cgroup (%v). "+
				"Numbers are not comparable with a confined run; run perfgate as root (sudo) or give it a delegated cgroup.", err))
	} else {
		t.hierarchy = h
		t.env.Limits = readBack
		t.env.CgroupVersion = h.Version
		t.env.Confinement = fmt.Sprintf("cgroup v%d", h.Version)
	}

	var err error
	if t.gomaxprocs, err = t.env.SizeGOMAXPROCS(t.limits.CPUMillicores, t.userGOMAXPROCS); err != nil {
		return t.env, err
	}
	t.placement, err = t.env.PlaceService(t.limits.CPUMillicores)
	return t.env, err
}

// probeCgroups removes groups of dead perfgate processes and creates (then
// removes) one group, so a missing privilege shows before the first run.
// It returns the limits as the kernel reports them.
func (t *Target) probeCgroups() (*cgroup.Hierarchy, cgroup.Limits, error) {
	h, err := cgroup.Detect()
	if err != nil {
		return nil, cgroup.Limits{}, err
	}
	// Not being allowed to sweep means not being allowed to create either,
	// which Create below reports.
	if swept, err := h.Sweep(); err == nil {
		t.env.Warnings = append(t.env.Warnings, swept.Warnings()...)
	}
	g, err := h.Create(t.limits)
	if err != nil {
		return nil, cgroup.Limits{}, err
	}
	readBack, err := g.Limits()
	if removeErr := g.Remove(); err == nil {
		err = removeErr
	}
	return h, readBack, err
}

// Close stops any process still running and restores perfgate's affinity.
func (t *Target) Close() error {
	t.live.Each(func(p *process) { p.Stop() })
	return t.placement.Undo()
}
