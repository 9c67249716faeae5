// Package config reads perfgate.yml: the service to build and run, its
// resource limits, the load to drive at it, and the thresholds that gate a
// pull request. The file format is a user-facing contract (docs/cli.md,
// "perfgate.yml"); every problem in a file is reported at once, each with
// its line, field, value and the allowed form, so a user fixes all in one
// edit.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Targets are the places a service can run, the default first. The
// Action checks its target input against a generated copy
// (src/engine-facts.ts, see TestActionFactsAreTheEngines).
var Targets = []string{"local", "docker", "kind", "kubernetes"}

// LabelPattern is what the label of a recorded run (perfgate run --label)
// may hold: the label is shown in the report's title and comment and names
// the recording for whatever keeps the trend, so it is kept to a
// branch-name alphabet. The Action checks a branch name against a
// generated copy (src/engine-facts.ts) before it passes it as the label.
var LabelPattern = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,100}$`)

// Experiments are the experiment designs, the default first: duet (base
// and head served at the same time, on the same CPUs) and sequential (one
// process after the other, for latency that must look like production).
var Experiments = []string{"duet", "sequential"}

func experimentWant() string { return "one of " + strings.Join(Experiments, ", ") }

// Layouts are where each round's binaries get their layout, the default
// first: random (relinked with a layout drawn per round) and build (each
// side's build as it is).
var Layouts = []string{"random", "build"}

func layoutWant() string { return "one of " + strings.Join(Layouts, ", ") }

// LayoutPairings are how the two sides of a round get their layouts
// under layout: random, the default first (report.Config.LayoutPairing).
var LayoutPairings = []string{"independent", "paired", "alternate"}

func layoutPairingWant() string { return "one of " + strings.Join(LayoutPairings, ", ") }

const layoutAlignWant = "a function alignment in bytes: a power of two from 16 to 4096 like 64, or 0 for the linker's own"

// LoadFroms are where a cluster's load comes from, the default first
// (report.Kubernetes.LoadFrom).
var LoadFroms = []string{"auto", "here", "cluster"}

func loadFromWant() string { return "one of " + strings.Join(LoadFroms, ", ") }

// Profiles are the pprof profiles perfgate can capture; all are captured
// unless perfgate.yml lists fewer.
var Profiles = []string{"cpu", "allocs", "mutex", "block", "goroutine", "heap"}

// Placeholders that service.args and service.env values may use; each run
// replaces them with the addresses chosen for that process.
const (
	PlaceholderAddr = "{addr}" // 127.0.0.1:PORT
	PlaceholderPort = "{port}" // PORT
	// The pprof listener's, when the service serves net/http/pprof on an
	// address of its own (pprof_listener.go).
	PlaceholderPprofAddr = "{pprof_addr}" // 127.0.0.1:PPROF_PORT
	PlaceholderPprofPort = "{pprof_port}" // PPROF_PORT
)

// Config is a whole perfgate.yml with defaults applied. Its fields and
// sections are report.Config's: report.json echoes the effective
// configuration, so its shape and JSON names are defined with the rest of
// the report's contract, and Report converts it.
type Config report.Config

// The sections of perfgate.yml, as report.json echoes them.
type (
	Service    = report.Service
	Build      = report.ServiceBuild
	Resources  = report.Resources
	Kubernetes = report.Kubernetes
	Kind       = report.Kind
	LoadSpec   = report.LoadSpec
	Request    = report.Request
	Gate       = report.Gate
	Validity   = report.Validity
)

// Report is the configuration as report.json records it.
func (c *Config) Report() report.Config { return report.Config(*c) }

// Default is the configuration a perfgate.yml starts from: everything but
// Service.Package, which the user must name.
func Default() *Config {
	return &Config{
		Version: 1,
		Service: Service{
			Args:         []string{},
			Env:          map[string]string{},
			Ready:        "/healthz",
			Pprof:        "/debug/pprof",
			ReadyTimeout: Duration(30 * time.Second),
			ResetTimeout: Duration(30 * time.Second),
		},
		Resources: Resources{CPU: 1000, Memory: 256 << 20},
		Target:    "local",
		Load: LoadSpec{
			Rate:     500,
			Warmup:   Duration(2 * time.Second),
			Duration: Duration(5 * time.Second),
			Timeout:  Duration(2 * time.Second),
			Requests: []Request{{Method: "GET", Path: "/"}},
		},
		Experiment: "duet",
		Layout:     "random",
		// docs/benchmarks.md, "Where a round's spread comes from".
		LayoutAlign: 64,
		// Pairing gained nothing measurable yet (docs/benchmarks.md,
		// "Paired layouts").
		LayoutPairing: "independent",
		Kubernetes:    Kubernetes{LoadFrom: "auto"},
		// From the simulations of docs/statistics.md at the per-round noise
		// a duet measures (docs/benchmarks.md): 14 rounds catch +5% CPU in
		// every gate and could detect ~1.8%; most gates stop there.
		Pairs:         14,
		MaxPairs:      28,
		Profiles:      append([]string(nil), Profiles...),
		ProfileRounds: 3,
		Gate: Gate{
			CPU:    0.015,
			Allocs: 0.02,
			Bytes:  0.03,
			Errors: 0.001,
			Alpha:  0.01,
			// One goroutine or 64 KiB of live heap kept per 1,000
			// requests is a leak: a service serving 500 req/s would hold
			// 43,000 more goroutines or 2.6 GiB more heap after a day.
			Goroutines: 1,
			Heap:       64 << 10,
		},
		Validity: Validity{
			MinRate:         0.99,
			MaxErrors:       0.01,
			MinCPUSamples:   20,
			MaxGeneratorCPU: 0.90,
			MaxSharedCPU:    0.75,
		},
	}
}

// Load reads, defaults and validates a perfgate.yml. Every error is a
// *Error or an errors.Join of them; Errors lists them.
func Load(path string) (*Config, error) {
	data, err := readFile(path)
	if tooLarge := (*Error)(nil); errors.As(err, &tooLarge) {
		return nil, tooLarge
	}
	if err != nil {
		e := &Error{File: path, Problem: "cannot be read: " + err.Error()}
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			e.Problem = "cannot be read: " + pathErr.Err.Error()
		}
		if errors.Is(err, fs.ErrNotExist) {
			e.Want = "a perfgate.yml at that path (see the README for an example)"
		}
		if u, ok := privilege.Invoker(); ok && errors.Is(err, fs.ErrPermission) {
			e.Problem = fmt.Sprintf("cannot be read by uid %d, who ran perfgate through sudo (perfgate reads it with that user's rights, not root's)", u.UID)
			e.Want = "a perfgate.yml that user can read, such as the one in their checkout"
		}
		return nil, e
	}
	return Parse(path, data)
}

// Parse reads, defaults and validates perfgate.yml text; path is only used
// in messages. It reports every problem, not just the first.
func Parse(path string, data []byte) (*Config, error) {
	if len(data) > MaxFileBytes {
		return nil, fileTooLarge(path, int64(len(data)))
	}
	d := newDiagnostics(path)
	root := d.document(data)
	if root == nil {
		return nil, d.err()
	}
	c := Default()
	d.config(root, c)
	d.validate(c)
	if err := d.err(); err != nil {
		return nil, err
	}
	c.normalize()
	return c, nil
}

// normalize writes valid values one way: the package as ./dir (or .), the
// pprof prefix without a trailing slash and no empty env_from.
func (c *Config) normalize() {
	if clean := path.Clean(c.Service.Package); clean == "." {
		c.Service.Package = "."
	} else {
		c.Service.Package = "./" + clean
	}
	c.Service.Pprof = strings.TrimRight(c.Service.Pprof, "/")
	if len(c.Service.EnvFrom) == 0 {
		c.Service.EnvFrom = nil // report.json leaves an empty env_from out
	}
}

// Validate checks a Config built in code (for example from Default) the way
// Parse checks a file; its errors carry no file or line.
func (c *Config) Validate() error {
	d := newDiagnostics("")
	d.validate(c)
	return d.err()
}

// Listen is where one service process is told to listen: the values of
// the placeholders in service.args and service.env. PprofAddr and
// PprofPort are empty unless the service has a pprof listener of its own
// (Config.SeparatePprof).
type Listen struct {
	Addr      string // 127.0.0.1:PORT, or 0.0.0.0:PORT inside a container
	Port      int
	PprofAddr string
	PprofPort int
}

// Args are the service's command-line arguments for one process listening
// at l, with the placeholders replaced.
func (c *Config) Args(l Listen) []string {
	r := placeholders(l)
	args := make([]string, len(c.Service.Args))
	for i, a := range c.Service.Args {
		args[i] = r.Replace(a)
	}
	return args
}

// Env is the service's extra environment as KEY=VALUE entries sorted by
// key, with the placeholders replaced: service.env, then service.env_from
// read from perfgate's own environment now (CheckEnvFrom says beforehand
// whether all of it is there). Its values may be secrets: they go to the
// service only, never into an error, a log or the report.
func (c *Config) Env(l Listen) []string {
	r := placeholders(l)
	keys := make([]string, 0, len(c.Service.Env))
	for k := range c.Service.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + r.Replace(c.Service.Env[k])
	}
	return append(env, c.envFrom()...)
}

func placeholders(l Listen) *strings.Replacer {
	pprofPort := ""
	if l.PprofPort != 0 {
		pprofPort = strconv.Itoa(l.PprofPort)
	}
	return strings.NewReplacer(PlaceholderAddr, l.Addr, PlaceholderPort, strconv.Itoa(l.Port),
		PlaceholderPprofAddr, l.PprofAddr, PlaceholderPprofPort, pprofPort)
}
