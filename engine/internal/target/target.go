// Package target defines where a service under test runs. A Target starts
// fresh service processes with fixed CPU and memory limits and reports the
// counters only the host can see (CPU time, throttling, memory peak, OOM
// kills). The measurement itself does not depend on the target.
package target

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
)

// Spec is one service process to start.
type Spec struct {
	// Binary is the path of the built service.
	Binary string
	// Args and Env are called with the addresses chosen for this process
	// (127.0.0.1:PORT and its port, and the pprof listener's when
	// SeparatePprof), and return argv[1:] and extra environment entries
	// (KEY=VALUE).
	Args func(l config.Listen) []string
	Env  func(l config.Listen) []string
	// SeparatePprof asks for a second address per process, where the
	// service serves net/http/pprof (PprofListener).
	SeparatePprof bool
	// SecretEnv names the Env entries whose values must not be written
	// where others read them (a command line, an error): a target passes
	// them to the service by name only.
	SecretEnv []string
	// Ready is the path that answers 2xx once the service serves.
	Ready        string
	ReadyTimeout time.Duration
	// LogDir receives stdout.log and stderr.log.
	LogDir string
}

// Target starts service processes. Prepare is called once before the
// first Start, Close once after the last Stop. WarnTo, called before
// Prepare, says where the warnings met after Prepare go (report.Warnings);
// targets embed a Warner for it.
type Target interface {
	Name() string
	WarnTo(sink func(string))
	Prepare(ctx context.Context) (Environment, error)
	Start(ctx context.Context, spec Spec) (Instance, error)
	Close() error
}

// Instance is one running service process.
type Instance interface {
	// BaseURL is where the load and the profile requests go, e.g.
	// http://127.0.0.1:41234.
	BaseURL() string
	// Counters reads the process's cumulative counters now.
	Counters() (Counters, error)
	// Exited is closed when the process has exited.
	Exited() <-chan struct{}
	// Stop ends the process (and anything it started) and reports how it
	// ended. It is safe to call more than once.
	Stop() Exit
}

// PprofListener is an Instance started with Spec.SeparatePprof on a target
// that supports it: profiles and runtime counters are read at PprofURL
// (like http://127.0.0.1:41235) instead of BaseURL.
type PprofListener interface {
	PprofURL() string
}

// Proxied is an Instance perfgate reaches through a proxy for readiness,
// profiles and MemStats (the Kubernetes API server's pod proxy): requests
// go to ControlURL with ControlClient, which carries the credentials.
// Instances without it are reached at BaseURL directly.
type Proxied interface {
	ControlURL() string
	ControlClient() *http.Client
}

// Dialed is an Instance perfgate reaches at BaseURL from a network
// namespace other than its own (a kind node's, the only one with a route
// to its pods): perfgate's generator and its profile and MemStats reads
// connect through Dial, which has http.Transport's DialContext's
// signature.
type Dialed interface {
	Dial(ctx context.Context, network, address string) (net.Conn, error)
}

// RemoteLoad is an Instance whose load comes from a generator the target
// runs elsewhere (inside the cluster); the others are attacked at BaseURL
// by perfgate itself.
type RemoteLoad interface {
	Generator(rate float64, timeout time.Duration, requests []load.Request) (load.Attacker, error)
}

// RemoteDuet is a Target whose RemoteLoad instances can run as a duet:
// DuetGenerator makes one generator, where the target runs its load, that
// sends every request to both instances at rate each in the balanced
// order of load.NewDuet (swap makes instances[1] lead), with a summary
// per instance in their order. DuetRoom, after Prepare, says why two
// instances cannot run side by side there (nil when they can).
type RemoteDuet interface {
	Target
	DuetRoom() error
	DuetGenerator(instances [2]Instance, rate float64, timeout time.Duration, requests []load.Request, swap bool) (load.DuetAttacker, error)
}

// LoadsInside is a Target whose instances are RemoteLoad, each attacked by
// a generator elsewhere, unless it reaches them from perfgate's machine
// (the kubernetes target's load_from). Unless it is also a
// RemoteDuet, two instances cannot share one balanced attack, and a duet
// falls back to sequential pairs (see docs/targets.md).
type LoadsInside interface {
	Target
	LoadsInside()
}

// OnNode is an Instance on a machine other than perfgate's (a cluster's
// node): NodeCPUs is how many CPUs that machine has, 0 when it cannot be
// told. A duet's shared-CPU rule holds both sides' use against them, not
// against the CPUs of the machine perfgate runs on.
type OnNode interface {
	NodeCPUs() int
}

// StartsInParallel is a Target whose Start and Stop mostly wait on
// something else: a cluster loads the image, schedules the pod, starts
// and probes it, then deletes it, seconds each while the CPUs idle. A duet
// round starts its two instances at once there, and stops them at once,
// instead of one after the other. The round's start order still decides
// which side is read first at every edge; local and docker, whose starts
// take a fraction of a second, keep starting one after the other.
// Start's context ends when the round's starts return (sooner when the
// other side's start fails): an instance must not live by it.
type StartsInParallel interface {
	Target
	StartsInParallel()
}

// Preloads is a Target whose Start does slow work of its own on the
// binary before the process starts (a cluster's image, built and given to
// the cluster): Preload does it ahead, so that the Start of that binary
// finds it done. A duet preloads the next round's binaries while the
// last round's instances stop. A failed Preload is forgotten: Start does
// the work again and reports its error.
type Preloads interface {
	Target
	Preload(ctx context.Context, binary string) error
}

// Environment is what a target knows about where it runs the service.
type Environment struct {
	Target string
	// Confinement is "cgroup v1", "cgroup v2" or "unconfined".
	Confinement   string
	CgroupVersion int
	// Limits are the limits as read back from the kernel when confined.
	Limits cgroup.Limits
	// ServiceCPUs and GeneratorCPUs are the CPU sets the service and the
	// load generator are pinned to (empty when not pinned).
	ServiceCPUs   []int
	GeneratorCPUs []int
	// GOMAXPROCS is the value the service runs with and where it comes
	// from ("set from the CPU limit" or "set by service.env").
	GOMAXPROCS       int
	GOMAXPROCSSource string
	// Warnings are conditions that make numbers less trustworthy.
	Warnings []string
}

// Counters are cumulative process and cgroup figures at one instant.
type Counters struct {
	At             time.Time
	ProcessCPUNano int64
	// Cgroup is nil when the service runs unconfined.
	Cgroup *cgroup.Stats
	// MaxRSSBytes is the process's resident high-water mark (VmHWM).
	MaxRSSBytes int64
}

// Exit is how a service process ended.
type Exit struct {
	// ExitedOnItsOwn is false when the process was still running until Stop.
	ExitedOnItsOwn bool
	Code           int
	Signal         string
	OOMKilled      bool
	// StderrTail is the end of the service's stderr, for crash reports.
	StderrTail string
}

// StartError is a service that did not become ready; Exit says whether it
// died on its own.
type StartError struct {
	Reason string
	Exit   Exit
}

func (e *StartError) Error() string {
	if e.Exit.StderrTail == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s; last lines of its stderr:\n%s", e.Reason, e.Exit.StderrTail)
}

// ConfigError is a target that cannot run because of the user's settings
// (a kubeconfig context that does not exist): exit code 2, not 3.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }
