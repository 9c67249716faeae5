package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/image"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// stopGrace is how long a service gets to shut down after SIGTERM before
// Docker kills it; the same grace as the local target.
const stopGrace = 3

type container struct {
	t   *Target
	id  string
	pid int // the service's pid on this machine
	url string
	// pprofURL is the service's pprof listener, when it has one of its
	// own (target.Spec.SeparatePprof); empty otherwise.
	pprofURL string
	group    *cgroup.Group
	logDir   string

	exited   chan struct{}
	stopOnce sync.Once
	exit     target.Exit
	// lastStats are the cgroup's counters at the last read, kept because
	// Docker removes the cgroup the moment the container dies.
	lastStats *cgroup.Stats
	// oom sees an OOM kill the moment it happens, before the group goes:
	// State.OOMKilled can miss it (on v2 Docker 20.10 never sets it, on v1
	// a kill that ends the container at once can be missed), and so can
	// lastStats. On v1 it watches the container's own memory group, the
	// one its limit is set on (OfProcess, checkLimits).
	oom *cgroup.OOMWatch
}

// Start runs a fresh container of spec's binary and returns once the
// service answers its readiness path, or as soon as the container dies.
func (t *Target) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	ref, err := t.ensureImage(ctx, spec.Binary)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.started++
	name := fmt.Sprintf("%s-%d", t.run, t.started)
	t.mu.Unlock()

	c := &container{t: t, logDir: spec.LogDir, exited: make(chan struct{})}
	if c.id, err = t.docker.runWithEnv(ctx, secretEnv(spec), t.runArgs(name, ref, spec)...); err != nil {
		// A failed `docker run` may still have created the container.
		_, _ = t.docker.run(context.Background(), "rm", "--force", name)
		return nil, &InfraError{Err: fmt.Errorf("target docker: start the service's container: %w", err)}
	}
	t.live.Track(c, true)
	go c.waitExit()
	if err := c.locate(ctx, spec.SeparatePprof); err != nil {
		c.Stop()
		return nil, err
	}
	ready := target.WaitReady(ctx, c.url, spec, c.exited, func() string { return c.describeExit() })
	if ready != nil {
		exit := c.Stop()
		if se := (*target.StartError)(nil); errors.As(ready, &se) {
			se.Exit = exit
		}
		return nil, ready
	}
	return c, nil
}

// listen is where a service listens inside its container: the same
// addresses for every container, each in its own network namespace.
func listen(separatePprof bool) config.Listen {
	l := config.Listen{Addr: fmt.Sprintf("0.0.0.0:%d", servicePort), Port: servicePort}
	if separatePprof {
		l.PprofAddr, l.PprofPort = fmt.Sprintf("0.0.0.0:%d", pprofPort), pprofPort
	}
	return l
}

// runArgs is the `docker run` command line of one service container. The
// entries of spec.SecretEnv are passed by name only (--env NAME): docker
// takes their values from its own environment (secretEnv), so they never
// show in a command line or in the error of a failed `docker run`.
func (t *Target) runArgs(name, ref string, spec target.Spec) []string {
	l := listen(spec.SeparatePprof)
	args := []string{"run", "--detach", "--name", name,
		"--label", labelRun + "=" + t.run, "--label", labelPID + "=" + strconv.Itoa(os.Getpid()), "--label", labelHost + "=" + t.host,
		"--cpus", strconv.FormatFloat(float64(t.limits.CPUMillicores)/1000, 'f', -1, 64),
		// Swap equal to memory means no swap: an over-limit service is
		// OOM-killed, as it would be in a pod, instead of slowing down.
		"--memory", strconv.FormatInt(t.limits.MemoryBytes, 10), "--memory-swap", strconv.FormatInt(t.limits.MemoryBytes, 10),
		// Published on loopback only, for a person poking at a live run;
		// perfgate itself uses the bridge address.
		"--publish", fmt.Sprintf("127.0.0.1::%d", servicePort),
		// json-file so `docker logs` works whatever the daemon's default;
		// rotated, so a service flooding its logs cannot fill the
		// daemon's disk (keepLogs keeps the last target.LogLimit).
		"--log-driver", "json-file", "--log-opt", "max-size=2m", "--log-opt", "max-file=2",
		// The pull request's code never runs as root: without a user
		// namespace the container's root is the host's. Numeric, since a
		// scratch image has no /etc/passwd.
		"--user", fmt.Sprintf("%d:%d", privilege.Nobody.UID, privilege.Nobody.GID),
		// The service's dependencies (a database the job runs as a service
		// container, published on the host) are on the host, whose
		// loopback is not the container's: host.docker.internal names the
		// host from inside, as on Docker Desktop (docs/dependencies.md).
		"--add-host", "host.docker.internal:host-gateway",
	}
	if t.placement.Service != nil {
		args = append(args, "--cpuset-cpus", joinInts(t.placement.Service))
	}
	if t.userGOMAXPROCS == "" {
		args = append(args, "--env", fmt.Sprintf("GOMAXPROCS=%d", t.gomaxprocs))
	}
	if spec.SeparatePprof {
		args = append(args, "--publish", fmt.Sprintf("127.0.0.1::%d", pprofPort))
	}
	for _, kv := range spec.Env(l) {
		if name, _, _ := strings.Cut(kv, "="); slices.Contains(spec.SecretEnv, name) {
			kv = name
		}
		args = append(args, "--env", kv)
	}
	args = append(args, ref)
	return append(args, spec.Args(l)...)
}

// secretEnv is the docker client's share of the service's environment: the
// entries of spec.SecretEnv, whose names alone are on runArgs' command
// line.
func secretEnv(spec target.Spec) []string {
	var env []string
	for _, kv := range spec.Env(listen(spec.SeparatePprof)) {
		if name, _, _ := strings.Cut(kv, "="); slices.Contains(spec.SecretEnv, name) {
			env = append(env, kv)
		}
	}
	return env
}

// ensureImage loads the image of a binary once per run; both sides of a
// gate get their own image, tagged with the run and the binary's hash.
func (t *Target) ensureImage(ctx context.Context, binary string) (string, error) {
	t.mu.Lock()
	ref, ok := t.images[binary]
	t.mu.Unlock()
	if ok {
		return ref, nil
	}
	if err := image.CheckStatic(binary); err != nil {
		return "", &target.ConfigError{Err: fmt.Errorf("target docker: %w", err)}
	}
	sum, err := image.FileDigest(binary)
	if err != nil {
		return "", err
	}
	ref = fmt.Sprintf("perfgate/service:%s-%s", t.run, sum[:12])
	archive := filepath.Join(t.workDir, sum[:12]+".tar")
	if _, err := image.WriteArchive(archive, image.Spec{Ref: ref, Binary: binary, Labels: map[string]string{
		labelRun: t.run, labelPID: strconv.Itoa(os.Getpid()), labelHost: t.host,
	}}); err != nil {
		return "", err
	}
	defer os.Remove(archive)
	if _, err := t.docker.run(ctx, "load", "--quiet", "--input", archive); err != nil {
		return "", &InfraError{Err: fmt.Errorf("target docker: load the service's image: %w", err)}
	}
	t.mu.Lock()
	t.images[binary] = ref
	t.mu.Unlock()
	return ref, nil
}

// inspectState is the part of `docker inspect` perfgate reads.
type inspectState struct {
	State struct {
		Status    string
		Pid       int
		ExitCode  int
		OOMKilled bool
		Error     string
	}
	NetworkSettings struct {
		Networks map[string]struct{ IPAddress string }
		Ports    map[string][]struct{ HostIP, HostPort string }
	}
}

func (t *Target) inspect(ctx context.Context, id string) (inspectState, error) {
	var s []inspectState
	out, err := t.docker.run(ctx, "container", "inspect", id)
	if err != nil {
		return inspectState{}, err
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s) != 1 {
		return inspectState{}, fmt.Errorf("docker inspect %s: unexpected output: %w", id, err)
	}
	return s[0], nil
}

// locate finds the container's service process and cgroup on this machine
// and the address load should go to: the bridge address when the host can
// reach it, otherwise the loopback port (through docker-proxy).
func (c *container) locate(ctx context.Context, separatePprof bool) error {
	s, err := c.t.inspect(ctx, c.id)
	if err != nil {
		return &InfraError{Err: err}
	}
	if s.State.Pid == 0 {
		// It died at once; WaitReady reports it with its logs.
		c.url = "http://127.0.0.1:1"
		return nil
	}
	group, err := cgroup.OfProcess(s.State.Pid)
	if errors.Is(err, fs.ErrNotExist) {
		// It died between inspect and here (its /proc entry is gone): as
		// above, WaitReady reports it with its logs. Seen in CI with a
		// service that exits at once.
		c.url = "http://127.0.0.1:1"
		return nil
	}
	if err != nil {
		return &InfraError{Err: fmt.Errorf(
			"target docker: cannot read the container's cgroup on this machine (%w); the docker target needs the Docker engine to run on the machine perfgate runs on, not a remote DOCKER_HOST", err)}
	}
	c.pid, c.group = s.State.Pid, group
	if err := c.checkLimits(); err != nil {
		return err
	}
	if c.oom, err = c.group.WatchOOMKills(); err != nil {
		return &InfraError{Err: fmt.Errorf("target docker: watch the container's cgroup for OOM kills: %w", err)}
	}
	for _, n := range s.NetworkSettings.Networks {
		if n.IPAddress != "" && reachable(n.IPAddress) {
			c.url = fmt.Sprintf("http://%s:%d", n.IPAddress, servicePort)
			if separatePprof {
				c.pprofURL = fmt.Sprintf("http://%s:%d", n.IPAddress, pprofPort)
			}
			return nil
		}
	}
	published := func(port int) string {
		for _, p := range s.NetworkSettings.Ports[fmt.Sprintf("%d/tcp", port)] {
			if p.HostPort != "" {
				return "http://127.0.0.1:" + p.HostPort
			}
		}
		return ""
	}
	if c.url = published(servicePort); c.url != "" {
		if separatePprof {
			if c.pprofURL = published(pprofPort); c.pprofURL == "" {
				return &InfraError{Err: fmt.Errorf("target docker: container %s has no published port for its pprof listener (%d)", c.id[:12], pprofPort)}
			}
		}
		return nil
	}
	return &InfraError{Err: fmt.Errorf("target docker: container %s has neither a bridge address this machine can reach nor a published port", c.id[:12])}
}

// checkLimits reads the limits back from the container's cgroup: an
// engine that silently ignores --memory (no memory accounting) or --cpus
// would give numbers that look confined and are not.
func (c *container) checkLimits() error {
	got, err := c.group.Limits()
	if err != nil {
		return &InfraError{Err: fmt.Errorf("target docker: read the container's limits: %w", err)}
	}
	want := c.t.limits
	if got.CPUMillicores != want.CPUMillicores || got.MemoryBytes != cgroup.PageRound(want.MemoryBytes) {
		return &InfraError{Err: fmt.Errorf(
			"target docker: the engine did not apply the limits: asked for cpu %dm and memory %d bytes, the container's cgroup has cpu %dm and memory %d bytes; check `docker info` for cgroup warnings",
			want.CPUMillicores, want.MemoryBytes, got.CPUMillicores, got.MemoryBytes)}
	}
	return nil
}

// reachable says whether this machine routes to addr (a bridge address is
// reachable from the Docker host on Linux, not from Docker Desktop's).
func reachable(addr string) bool {
	conn, err := net.DialTimeout("udp", net.JoinHostPort(addr, "9"), time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// waitExit closes exited when the container stops, however it stops.
func (c *container) waitExit() {
	_, _ = c.t.docker.run(context.Background(), "wait", c.id)
	close(c.exited)
}

func (c *container) BaseURL() string         { return c.url }
func (c *container) PprofURL() string        { return c.pprofURL }
func (c *container) Exited() <-chan struct{} { return c.exited }

// Counters reads the service process's CPU time and high-water mark from
// /proc and the container's cgroup counters.
func (c *container) Counters() (target.Counters, error) {
	counters, err := target.ReadCounters(c.pid, c.group)
	if counters.Cgroup != nil {
		c.lastStats = counters.Cgroup
	}
	return counters, err
}

// Stop stops the container (SIGTERM, then SIGKILL after stopGrace), keeps
// its logs, records how it ended and removes it.
func (c *container) Stop() target.Exit {
	c.stopOnce.Do(func() {
		ctx := context.Background()
		select {
		case <-c.exited:
			c.exit.ExitedOnItsOwn = true
		default:
			_, _ = c.t.docker.run(ctx, "stop", "--time", strconv.Itoa(stopGrace), c.id)
			select {
			case <-c.exited:
			case <-time.After(10 * time.Second):
			}
		}
		if s, err := c.t.inspect(ctx, c.id); err == nil {
			c.exit.Code = s.State.ExitCode
			if s.State.ExitCode > 128 && s.State.ExitCode <= 128+64 {
				c.exit.Signal = syscall.Signal(s.State.ExitCode - 128).String()
			}
			c.exit.OOMKilled = s.State.OOMKilled || (c.lastStats != nil && c.lastStats.OOMKills > 0)
		}
		c.oom.Stop()
		c.exit.OOMKilled = c.exit.OOMKilled || c.watchSawOOMKill(c.exit.Code)
		c.keepLogs(ctx)
		if _, err := c.t.docker.run(ctx, "rm", "--force", "--volumes", c.id); err != nil {
			c.t.Warn("could not remove container %s (%v); the next perfgate run on this host removes it, or run docker rm --force %s", c.id[:min(12, len(c.id))], err, c.id)
		}
		c.t.live.Track(c, false)
	})
	return c.exit
}

// keepLogs writes the end of the container's stdout and stderr to the
// run's log directory, as the local target does.
func (c *container) keepLogs(ctx context.Context) {
	if c.logDir == "" {
		return
	}
	stdout, err1 := target.CreateTailLog(filepath.Join(c.logDir, "stdout.log"), target.LogLimit)
	stderr, err2 := target.CreateTailLog(filepath.Join(c.logDir, "stderr.log"), target.LogLimit)
	if err1 == nil && err2 == nil {
		_ = c.t.docker.runTo(ctx, stdout, stderr, "logs", c.id)
	}
	for _, f := range []*target.TailLog{stdout, stderr} {
		if f != nil {
			f.Close()
		}
	}
	c.exit.StderrTail = target.FileTail(filepath.Join(c.logDir, "stderr.log"), 20, 4096)
}

// watchSawOOMKill says whether the OOM watch explains a container that
// exited with exitCode. The kernel's OOM killer sends SIGKILL; the watch
// may count a sibling's kill too, so a container that ended otherwise was
// not it.
func (c *container) watchSawOOMKill(exitCode int) bool {
	return exitCode == 128+int(syscall.SIGKILL) && c.oom.Kills() > 0
}

// describeExit says how a container that died during start-up ended.
func (c *container) describeExit() string {
	s, err := c.t.inspect(context.Background(), c.id)
	if err != nil {
		return "its state is unknown: " + err.Error()
	}
	switch {
	case s.State.OOMKilled || c.watchSawOOMKill(s.State.ExitCode):
		return "OOM-killed"
	case s.State.Error != "":
		return s.State.Error
	}
	return fmt.Sprintf("exit code %d", s.State.ExitCode)
}

func joinInts(values []int) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}
