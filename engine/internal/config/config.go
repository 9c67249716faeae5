// Package config reads perfgate.yml: the service to build and run, its
// resource limits, the load to drive at it, and the thresholds that gate a
// pull request. The file format is a user-facing contract (see DESIGN.md,
// "Contracts"); every problem in a file is reported at once, each with its
// line, field, value and the allowed form, so a user fixes all in one edit.
package config

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
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

// Profiles are the pprof profiles perfgate can capture; all are captured
// unless perfgate.yml lists fewer.
var Profiles = []string{"cpu", "allocs", "mutex", "block", "goroutine", "heap"}

// Placeholders that service.args and service.env values may use; each run
// replaces them with the address chosen for that process.
const (
	PlaceholderAddr = "{addr}" // 127.0.0.1:PORT
	PlaceholderPort = "{port}" // PORT
)

// Config is a whole perfgate.yml with defaults applied. It is echoed into
// report.json, so every field has a JSON name and units marshal as text.
type Config struct {
	Version   int       `json:"version"`
	Service   Service   `json:"service"`
	Resources Resources `json:"resources"`
	Target    string    `json:"target"` // local | docker | kind | kubernetes
	// Kubernetes says where and how the kubernetes target deploys.
	Kubernetes Kubernetes `json:"kubernetes"`
	// Kind configures the cluster the kind target creates.
	Kind Kind     `json:"kind"`
	Load LoadSpec `json:"load"`
	// Experiment is "duet" (base and head at the same time on the same
	// CPUs, the default) or "sequential" (one process after the other).
	Experiment string `json:"experiment"`
	// Pairs is the minimum number of valid rounds (duet) or pairs
	// (sequential); MaxPairs the most the experiment adds while a gating
	// metric is undecided (docs/statistics.md). MaxPairs == Pairs is a
	// fixed number.
	Pairs    int      `json:"pairs"`
	MaxPairs int      `json:"max_pairs"`
	Profiles []string `json:"profiles"` // subset of Profiles
	// ProfileRounds is how many duet rounds after the gating ones capture
	// the profiles (a duet's gating rounds capture none: profiling both
	// sides biased the CPU comparison); sequential runs each capture them.
	ProfileRounds int      `json:"profile_rounds"`
	Gate          Gate     `json:"gate"`
	Validity      Validity `json:"validity"`
}

// Kubernetes configures the kubernetes target. Empty fields fall back to
// the environment (KUBECONFIG, PERFGATE_KUBE_CONTEXT,
// PERFGATE_KUBE_NAMESPACE), then to the kubeconfig's current context and a
// namespace perfgate creates for the run.
type Kubernetes struct {
	Kubeconfig string `json:"kubeconfig,omitempty"`
	Context    string `json:"context,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	// ImageLoad is the command that makes an image archive available to
	// the cluster's nodes; {archive} is the docker-archive tarball and
	// {image} its reference. Without it the images must be pullable from
	// ImageRepository (pushed by the command).
	ImageLoad       []string `json:"image_load,omitempty"`
	ImageRepository string   `json:"image_repository,omitempty"`
}

// Kind configures the kind target's cluster.
type Kind struct {
	// NodeImage is the node image (kind's own default when empty).
	NodeImage string `json:"node_image,omitempty"`
}

// Service says how to build and start the service under test.
type Service struct {
	// Package is the Go package to build, relative to the tree being
	// built, in the normalized form "./cmd/server" (or ".").
	Package string `json:"package"`
	// Args and Env may use {addr} and {port}; see Config.Args and Config.Env.
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	Ready        string            `json:"ready"`         // path that answers 2xx once the service serves
	Pprof        string            `json:"pprof"`         // net/http/pprof prefix without a trailing slash ("" at the root)
	ReadyTimeout Duration          `json:"ready_timeout"` // how long to wait for Ready
}

// Resources are the limits the service runs under, on every target.
type Resources struct {
	CPU    CPU   `json:"cpu"`
	Memory Bytes `json:"memory"`
}

// LoadSpec is the fixed open-model load driven at each run. (It is not
// named Load because that is the function reading a file.)
type LoadSpec struct {
	Rate     float64   `json:"rate"`     // requests per second
	Warmup   Duration  `json:"warmup"`   // at Rate, before measuring; may be 0
	Duration Duration  `json:"duration"` // the measured window of each run
	Timeout  Duration  `json:"timeout"`  // per request
	Requests []Request `json:"requests"` // sent round-robin
}

// Request is one request of the load. In YAML it is either the string
// "GET /search?q=alpha" or a mapping with method, path, headers and body.
type Request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"` // starts with a single "/": load only goes to the service
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// String is the short form used in messages and reports: "GET /path".
func (r Request) String() string { return r.Method + " " + r.Path }

// Gate holds the thresholds: a metric regresses when its increase is
// significant at Alpha AND its estimate is above the threshold.
type Gate struct {
	CPU    Fraction `json:"cpu"`    // CPU time per request, relative increase
	Allocs Fraction `json:"allocs"` // allocations per request, relative increase
	Bytes  Fraction `json:"bytes"`  // bytes allocated per request, relative increase
	Errors Fraction `json:"errors"` // error rate, absolute increase
	Alpha  float64  `json:"alpha"`  // significance level before Holm correction
	// Goroutines is the goroutines retained per 1,000 requests (absolute
	// increase) that fails the gate.
	Goroutines float64 `json:"goroutines"`
	// Heap is the live heap retained per 1,000 requests (absolute
	// increase, bytes) that fails the gate.
	Heap Bytes `json:"heap"`
	// Latency is the relative increase of latency quantiles that fails the
	// gate; 0 means latency is reported but does not gate.
	Latency Fraction `json:"latency"`
}

// Validity says when a run is measured well enough to be compared; an
// invalid run is reported with its reason and never counts as a regression.
type Validity struct {
	MinRate         Fraction `json:"min_rate"`          // achieved rate / target rate
	MaxErrors       Fraction `json:"max_errors"`        // share of failed requests
	MinCPUSamples   int      `json:"min_cpu_samples"`   // in the CPU profile of a run; 0 turns the check off
	MaxGeneratorCPU Fraction `json:"max_generator_cpu"` // load generator's CPU use, of its cores
	// MaxSharedCPU is how busy a duet's shared CPUs may be (base and head
	// together, of the CPUs they share): near saturation the two queue
	// behind each other and the comparison is no longer fair.
	MaxSharedCPU Fraction `json:"max_shared_cpu"`
}

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
	if tooLarge, ok := err.(*Error); ok {
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

// normalize writes valid values one way: the package as ./dir (or .) and
// the pprof prefix without a trailing slash.
func (c *Config) normalize() {
	if clean := path.Clean(c.Service.Package); clean == "." {
		c.Service.Package = "."
	} else {
		c.Service.Package = "./" + clean
	}
	c.Service.Pprof = strings.TrimRight(c.Service.Pprof, "/")
}

// Validate checks a Config built in code (for example from Default) the way
// Parse checks a file; its errors carry no file or line.
func (c *Config) Validate() error {
	d := newDiagnostics("")
	d.validate(c)
	return d.err()
}

// Args are the service's command-line arguments for one process listening
// on addr (127.0.0.1:PORT) and port, with the placeholders replaced.
func (c *Config) Args(addr string, port int) []string {
	r := placeholders(addr, port)
	args := make([]string, len(c.Service.Args))
	for i, a := range c.Service.Args {
		args[i] = r.Replace(a)
	}
	return args
}

// Env is the service's extra environment as KEY=VALUE entries sorted by key,
// with the placeholders replaced.
func (c *Config) Env(addr string, port int) []string {
	r := placeholders(addr, port)
	keys := make([]string, 0, len(c.Service.Env))
	for k := range c.Service.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + r.Replace(c.Service.Env[k])
	}
	return env
}

func placeholders(addr string, port int) *strings.Replacer {
	return strings.NewReplacer(PlaceholderAddr, addr, PlaceholderPort, strconv.Itoa(port))
}
