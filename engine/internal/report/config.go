package report

// Config is report.json's config: the whole perfgate.yml with defaults
// applied, section for section. Package config parses perfgate.yml into
// these types (its Config is a Config with parsing methods), so a key added
// to perfgate.yml appears here, under the compatibility rule of schema.go.
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
	Profiles []string `json:"profiles"` // subset of config.Profiles
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
	// Args and Env may use {addr} and {port}; see config.Config.Args and
	// config.Config.Env.
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	Ready        string            `json:"ready"`         // path that answers 2xx once the service serves
	Pprof        string            `json:"pprof"`         // net/http/pprof prefix without a trailing slash ("" at the root)
	ReadyTimeout Duration          `json:"ready_timeout"` // how long to wait for Ready
	// Reset is the command (argv, no shell) run on the host before every
	// duet round and every sequential run, so that base and head meet
	// their dependencies (a database) in the same state; absent when
	// there is none. ResetTimeout bounds one reset.
	Reset        []string `json:"reset,omitempty"`
	ResetTimeout Duration `json:"reset_timeout"`
}

// Resources are the limits the service runs under, on every target.
type Resources struct {
	CPU    CPU   `json:"cpu"`
	Memory Bytes `json:"memory"`
}

// LoadSpec is the fixed open-model load driven at each run. (It is not
// named Load because that is config's function reading a file, and Load
// here is a run's load figures.)
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
