// Package docker runs the service in a Docker container: a FROM-scratch
// image of the built binary, limited by --cpus/--memory and pinned apart
// from the load generator by --cpuset-cpus. Load and profiles go straight
// to the container's address on the bridge, not through docker-proxy, whose
// CPU would otherwise be spent outside the container and unmeasured.
// Counters come from the container's cgroup, read on this machine, so the
// Docker engine must run here (the usual case on runners and laptops).
package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Labels put on every container and image perfgate creates, so a run's
// leftovers can be found, and a dead perfgate's swept, by label alone.
// perfgate.host is the host identity (owner.Host: machine and PID
// namespace), not the hostname, so runners sharing a daemon from
// different containers never sweep each other's objects.
const (
	labelRun  = "perfgate.run"
	labelPID  = "perfgate.pid"
	labelHost = "perfgate.host"
)

// servicePort is the port the service listens on inside its container.
const servicePort = 8080

// pprofPort is the port of the service's pprof listener inside its
// container, when it has one of its own ({pprof_addr}, {pprof_port}).
const pprofPort = 6060

// InfraError is Docker missing, unreachable or failing: the gate reports
// an infrastructure error, never a measurement.
type InfraError struct{ Err error }

func (e *InfraError) Error() string { return e.Err.Error() }
func (e *InfraError) Unwrap() error { return e.Err }

// Target is the docker target. The zero value is not usable; call New.
type Target struct {
	limits         cgroup.Limits
	userGOMAXPROCS string

	docker  cli
	run     string // unique name of this perfgate invocation's objects
	host    string // owner.Host(), the perfgate.host label
	workDir string // image archives before they are loaded

	env        target.Environment
	gomaxprocs int
	placement  target.Placement

	target.Warner

	mu      sync.Mutex
	images  map[string]string // binary path → loaded image reference
	live    target.Live[*container]
	started int
}

// New returns a docker target that runs each service process under the
// given limits. userGOMAXPROCS is service.env's GOMAXPROCS, or "".
func New(limits cgroup.Limits, userGOMAXPROCS string) *Target {
	return &Target{limits: limits, userGOMAXPROCS: userGOMAXPROCS, images: map[string]string{}}
}

func (t *Target) Name() string { return "docker" }

// Prepare checks that a Docker engine answers, removes what dead perfgate
// runs left behind, chooses GOMAXPROCS and splits the CPUs between the
// service's containers and perfgate's load generator.
func (t *Target) Prepare(ctx context.Context) (target.Environment, error) {
	t.env = target.Environment{Target: "docker", Limits: t.limits}
	path, err := privilege.Tool("docker")
	if errors.Is(err, exec.ErrNotFound) {
		return t.env, &InfraError{Err: fmt.Errorf("target docker: the docker command is not installed (%w); install Docker (e.g. apt-get install docker.io) or use target: local", err)}
	}
	if err != nil {
		return t.env, &InfraError{Err: fmt.Errorf("target docker: %w", err)}
	}
	t.docker = cli{path: path}
	info, err := t.docker.run(ctx, "info", "--format", "{{.ServerVersion}}|{{.CgroupVersion}}|{{.CgroupDriver}}")
	if err != nil {
		return t.env, t.unreachable(ctx, err)
	}
	t.host = owner.Host()
	t.run = target.NewRunName()
	if t.workDir, err = os.MkdirTemp("", "perfgate-images-"); err != nil {
		return t.env, err
	}
	parts := strings.Split(info, "|")
	if len(parts) == 3 {
		t.env.Confinement = fmt.Sprintf("docker %s, cgroup v%s (%s)", parts[0], parts[1], parts[2])
		if version, err := strconv.Atoi(parts[1]); err == nil {
			t.env.CgroupVersion = version
		}
	}
	swept, err := sweep(ctx, t.docker, owner.Local())
	if err != nil {
		t.env.Warnings = append(t.env.Warnings, err.Error())
	}
	t.env.Warnings = append(t.env.Warnings, swept.Warnings()...)

	if t.gomaxprocs, err = t.env.SizeGOMAXPROCS(t.limits.CPUMillicores, t.userGOMAXPROCS); err != nil {
		return t.env, err
	}
	t.placement, err = t.env.PlaceService(t.limits.CPUMillicores)
	return t.env, err
}

// unreachable turns a failed `docker info` into an infrastructure error
// that says where perfgate looked and how to get an engine running.
func (t *Target) unreachable(ctx context.Context, err error) error {
	where := os.Getenv("DOCKER_HOST")
	if where == "" {
		where = "the default socket /var/run/docker.sock"
	}
	// Docker 20.10's CLI (Debian 12's docker.io) fails `docker info
	// --format` without an engine with a template error ("nil pointer to
	// embedded struct field Info") instead of saying so; `docker version`
	// still says so.
	if !engineUnreachable(err) {
		if _, versionErr := t.docker.run(ctx, "version"); engineUnreachable(versionErr) {
			err = versionErr
		}
	}
	if engineUnreachable(err) {
		return &InfraError{Err: fmt.Errorf(
			"target docker: no Docker engine answers at %s (%w). Start it (sudo systemctl start docker, or sudo dockerd &), set DOCKER_HOST to the engine's socket, or use target: local", where, err)}
	}
	return &InfraError{Err: fmt.Errorf("target docker: the Docker engine at %s did not answer `docker info`: %w", where, err)}
}

// Close stops every container still running, removes the images this run
// loaded and anything else labelled with its name, and restores
// perfgate's CPU affinity.
func (t *Target) Close() error {
	t.mu.Lock()
	images := t.images
	t.images = map[string]string{}
	t.mu.Unlock()
	t.live.Each(func(c *container) { c.Stop() })
	var errs []error
	ctx := context.Background()
	if t.run != "" {
		errs = append(errs, t.removeLabelled(ctx, labelRun+"="+t.run))
	}
	for _, ref := range images {
		if _, err := t.docker.run(ctx, "image", "rm", "--force", ref); err != nil && !strings.Contains(err.Error(), "No such image") {
			errs = append(errs, err)
		}
	}
	if t.workDir != "" {
		errs = append(errs, os.RemoveAll(t.workDir))
	}
	errs = append(errs, t.placement.Undo())
	return errors.Join(errs...)
}
