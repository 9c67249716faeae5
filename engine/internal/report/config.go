package report

// Config is report.json's config: the whole perfgate.yml with defaults
// applied, section for section. Package config parses perfgate.yml into
// these types (its Config is a Config with parsing methods), so a key added
// to perfgate.yml appears here, under the compatibility rule of schema.go.
//
// The doc comments of these types are also perfgate.yml's reference:
// docs/config.md is generated from them (engine/internal/config/reference),
// so they are written for the user of perfgate.yml. A field's key in
// perfgate.yml is its JSON name unless a `key` tag names another; a `unit`
// tag says what a plain number counts.
type Config struct {
	// Version is the perfgate.yml format; 1 is the only one so far.
	Version int `json:"version"`
	// Service says how to build and start the service under test.
	Service Service `json:"service"`
	// Resources are the limits the service runs under.
	Resources Resources `json:"resources"`
	// Target is where the service runs: a cgroup on this machine (local),
	// a container (docker), a kind cluster perfgate creates (kind) or an
	// existing cluster (kubernetes); see docs/targets.md. perfgate gate
	// --target overrides it.
	Target string `json:"target"`
	// Kubernetes says where and how the kubernetes target deploys.
	Kubernetes Kubernetes `json:"kubernetes"`
	// Kind configures the cluster the kind target creates.
	Kind Kind     `json:"kind"`
	Load LoadSpec `json:"load"`
	// Experiment is the design: duet runs base and head at the same time
	// on the same CPUs, so machine noise hits both alike; sequential runs
	// one process after the other in a seeded random order (noisier for
	// CPU; latency of the service alone). Every target runs a duet; the
	// kubernetes and kind targets with both pods on one node, driven by
	// one generator (perfgate's own where it reaches the pods, see
	// kubernetes.load_from, else one inside the cluster), or sequential,
	// saying so, when no node has room for both.
	Experiment string `json:"experiment"`
	// Layout is where each round's binaries get their function layout:
	// random relinks base and head with a layout drawn for every round
	// (the linker's -randlayout), so that an accident of layout, which
	// moves CPU per request by about ±0.6% with no change to the code,
	// averages out over the rounds instead of biasing the whole gate;
	// build keeps each side's one build for every round (for a
	// toolchain without the flag, or to measure the bias itself).
	Layout string `json:"layout"`
	// LayoutAlign is the alignment, in bytes, of every function in the
	// relinks of layout: random (the linker's -funcalign). The linker
	// aligns functions to 32 bytes on amd64, so each relink puts every
	// function, and every loop in it, at offset 0 or 32 of its 64-byte
	// cache line by chance: a service whose CPU sits in one tight loop
	// then runs at two speeds about 2.5% apart, and a layout per round
	// draws one per side. 64 starts every function on a cache line in
	// every layout, which removed about 90% of such a service's layout
	// variance (docs/benchmarks.md, "Where a round's spread comes
	// from"); 0 keeps the linker's own. layout: build keeps each side's
	// build as it is.
	LayoutAlign int `json:"layout_align"`
	// LayoutPairing is how the two sides of a round get their layouts
	// under layout: random. independent draws each side's layout on its
	// own. paired relinks both from one seed, with the functions ordered
	// by a hash of the seed and each function's name (perfgate's copy of
	// the toolchain's linker), so that every function the two sides
	// share sits alike in both and what its placement does to the CPU
	// cancels in the round's ratio, while each side's layout is still a
	// new random one every round: an A/A round is two byte-identical
	// layouts. alternate pairs the odd rounds and not the even ones, to
	// measure what pairing gains on a service (scripts/layout-pairing.py
	// reads its report). On route, the service whose layouts moved most,
	// pairing gained nothing measurable over aligned independent layouts
	// (docs/benchmarks.md, "Paired layouts"), so independent stays the
	// default.
	LayoutPairing string `json:"layout_pairing"`
	// Pairs is the number of valid rounds (duet) or pairs (sequential) a
	// gate measures before its first look at the statistics. A plain
	// number, pairs: 10, sets pairs.min and pairs.max alike: a fixed
	// number of rounds. Too few for gate.alpha is refused
	// (docs/statistics.md).
	Pairs int `json:"pairs" key:"pairs.min"`
	// MaxPairs is the most valid rounds or pairs the experiment adds while
	// a gating metric is undecided; the gate looks at the statistics a few
	// times between pairs.min and pairs.max and stops once every gating
	// metric is decided. At least pairs.min, at most 1000.
	MaxPairs int `json:"max_pairs" key:"pairs.max"`
	// Profiles are the pprof profiles captured for attribution and hints.
	Profiles []string `json:"profiles"`
	// ProfileRounds is how many duet rounds after the gating ones capture
	// the profiles (0 to 100; 0: no profiles in a duet). A duet's gating
	// rounds capture none, because profiling both sides biased the CPU
	// comparison; in a sequential experiment every run captures them.
	// Profile rounds run windows twice load.duration, at a load raised
	// within the validity limits (at most 4x load.rate), with
	// GODEBUG=memprofilerate=16384 added to the service's environment.
	ProfileRounds int      `json:"profile_rounds"`
	Gate          Gate     `json:"gate"`
	Validity      Validity `json:"validity"`
}

// Kubernetes configures the kubernetes target (the kind target fills it in
// itself). Empty fields fall back to the environment, then to the
// kubeconfig's current context and a namespace of the run's own.
type Kubernetes struct {
	// Kubeconfig is the kubeconfig file; empty: KUBECONFIG, then
	// ~/.kube/config.
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Context is the kubeconfig context; empty: PERFGATE_KUBE_CONTEXT,
	// then the current context.
	Context string `json:"context,omitempty"`
	// Namespace is where the run's objects go; empty:
	// PERFGATE_KUBE_NAMESPACE, then a namespace perfgate creates for the
	// run and deletes after it.
	Namespace string `json:"namespace,omitempty"`
	// ImageLoad is the command that makes an image archive available to
	// the cluster's nodes, as a list of arguments: {archive} is the
	// docker-archive tarball and {image} its reference, like [kind, load,
	// image-archive, "{archive}"]; the archive is also its standard input,
	// for a command that reads it there (ctr images import -, through
	// docker exec -i or ssh). Without it the images must be pullable
	// from image_repository (push them with this command). It runs as the
	// user who ran perfgate, with their groups (docker among them on a
	// runner), so a gate takes it from the base revision's perfgate.yml.
	ImageLoad []string `json:"image_load,omitempty"`
	// ImageRepository is where the service's and the load generator's
	// images are named: <repository>/service:<run>-<hash>; empty:
	// perfgate.
	ImageRepository string `json:"image_repository,omitempty"`
	// LoadFrom is where the load and the profile reads come from: auto
	// (from this machine when the cluster's node is this machine and
	// perfgate reaches the pods' IPs, as on a local cluster; otherwise from
	// a load generator perfgate runs in the cluster), here (from this
	// machine, or the run fails), or cluster (always the in-cluster
	// generator, through the API server's proxy).
	LoadFrom string `json:"load_from,omitempty"`
}

// Kind configures the kind target's cluster.
type Kind struct {
	// NodeImage is the kind node image, like kindest/node:v1.32.0; empty:
	// kind's own default.
	NodeImage string `json:"node_image,omitempty"`
}

// Service says how to build and start the service under test. The service
// must be told where to listen: service.args or service.env must use
// {addr} (127.0.0.1:PORT, chosen per run) or {port}.
type Service struct {
	// Package is the Go package to build, relative to the root of the tree
	// being built, like ./cmd/server (or . for the root). Required.
	Package string `json:"package"`
	// Args are the service's command-line arguments; {addr} and {port} are
	// replaced with the address chosen for each process, like ["-addr",
	// "{addr}"], and {pprof_addr} and {pprof_port} with a second one for a
	// service that serves net/http/pprof on a listener of its own (local
	// and docker targets; docs/services.md).
	Args []string `json:"args"`
	// Env is added to the service's environment, which holds nothing else
	// of perfgate's (on the local target: only PATH, HOME, TMPDIR and
	// GOMAXPROCS besides these); values may use the placeholders of args,
	// like {PORT: "{port}"}. GOMAXPROCS here wins over the one perfgate
	// sets from resources.cpu. Its values are written into the report:
	// take secrets from env_from.
	Env map[string]string `json:"env"`
	// EnvFrom is more of the service's environment, with values from
	// perfgate's own environment, by name: the service's variable to the
	// runner's, like {DB_PASSWORD: PERFGATE_DB_PASSWORD}. The report and the logs show
	// the names only; a runner variable that is not set is an error before
	// anything is built. Local and docker targets only (docs/services.md).
	EnvFrom map[string]string `json:"env_from,omitempty"`
	// Ready is the path polled with GET until it answers 2xx; the run
	// starts then.
	Ready string `json:"ready"`
	// Pprof is the net/http/pprof prefix, like /debug/pprof; profiles and
	// runtime counters are read there, on the service's own listener, or
	// on its pprof listener when args or env use {pprof_addr} or
	// {pprof_port}.
	Pprof string `json:"pprof"`
	// ReadyTimeout is how long to wait for ready to answer 2xx before the
	// run fails; at most 10m.
	ReadyTimeout Duration `json:"ready_timeout"`
	// Reset is a command (a list of strings, run without a shell: write
	// ["sh", "-c", "..."] for one) run before every duet round and every
	// sequential run, once for both sides, so that base and head meet
	// their dependencies (a database) in the same state; none by default.
	// It runs in the head's tree as the service's user, with service.env
	// except entries that use {addr} or {port}; a reset that fails makes
	// the runs it preceded invalid. Only the local and docker targets run
	// one (docs/dependencies.md).
	Reset []string `json:"reset,omitempty"`
	// ResetTimeout is how long one reset may take, at most 10m; it and
	// everything it started are killed then, and the runs it preceded are
	// invalid.
	ResetTimeout Duration     `json:"reset_timeout"`
	Build        ServiceBuild `json:"build,omitzero"`
}

// ServiceBuild says how the service's binary is built, the same way for
// base and head: by default go build -trimpath with CGO_ENABLED=0 and the
// toolchain on PATH (docs/services.md).
type ServiceBuild struct {
	// Tags are the build tags (go build -tags), like [netgo, prod]; the
	// relinks of layout: random use them too.
	Tags []string `json:"tags,omitempty"`
	// LDFlags are the linker flags (go build -ldflags), like "-s -X
	// main.version=perf"; the relinks of layout: random add their
	// -randlayout and -funcalign (layout_align) to them.
	LDFlags string `json:"ldflags,omitempty"`
	// CGO is whether to build with CGO_ENABLED=1, for a service that
	// needs C code; the report then warns that the binaries depend on this machine's C
	// toolchain and libraries. Local target only: the docker, kind and
	// kubernetes images hold the binary alone, without a C library.
	CGO bool `json:"cgo,omitempty"`
	// Command is a command that builds the binary instead of go build, as
	// a list of strings run without a shell, in the root of the tree being built, as the
	// user who ran perfgate (never as root under sudo); {out} is the path
	// the binary must be written to, like [make, build, "OUT={out}"]. Such
	// a binary cannot be relinked per round, so it needs layout: build;
	// tags, ldflags and cgo belong in the command then.
	Command []string `json:"command,omitempty"`
}

// Resources are the limits the service runs under, on every target: a
// cgroup (local), the container's limits (docker) or requests equal to
// limits (kubernetes, kind).
type Resources struct {
	// CPU is the CPU limit; GOMAXPROCS follows it (rounded up to whole
	// cores).
	CPU CPU `json:"cpu"`
	// Memory is the memory limit; the service is OOM-killed above it,
	// which makes the run invalid.
	Memory Bytes `json:"memory"`
}

// LoadSpec is the fixed open-model load driven at each run: the same
// requests at the same rate for base and head.
//
// It is not named Load because that is config's function reading a file,
// and Load here is a run's load figures.
type LoadSpec struct {
	// Rate is the constant request rate, to each side in a duet; at most
	// 20000, and rate times timeout (the requests in flight when the
	// service stalls) at most 100000.
	Rate float64 `json:"rate" unit:"requests per second"`
	// Warmup is how long the load runs at rate before the measured window;
	// may be 0, at most 5m. It starts by opening a quarter of a second of
	// the rate's connections to each service at once (at least 2, at most
	// 512), so that the window's pile-ups find their connections open; a
	// warm-up of 0 opens none.
	Warmup Duration `json:"warmup"`
	// Duration is the measured window of each round or run, in whole
	// seconds (pprof profiles cover whole seconds), from 1s to 10m. The
	// rounds of pairs.max, warm-ups and profile rounds included, must take
	// at most 5h, so that a gate fits a CI job's 6 hours.
	Duration Duration `json:"duration"`
	// Timeout is the timeout of each request, at most 1m; a request that
	// takes longer counts as an error.
	Timeout Duration `json:"timeout"`
	// Requests are the requests of the load, sent round-robin. Each is
	// either "METHOD /path" (like GET /search?q=alpha) or a mapping with
	// method, path, headers and body. Paths only: load never goes to
	// another host.
	Requests []Request `json:"requests"`
}

// Request is one request of the load. In YAML it is either the string
// "GET /search?q=alpha" or a mapping with method, path, headers and body.
type Request struct {
	// Method is the HTTP method; GET when a request written as a mapping
	// leaves it out.
	Method string `json:"method"`
	// Path is the path and query on the service, starting with a single /.
	Path string `json:"path"`
	// Headers are the request's headers, like {Content-Type:
	// application/json}; Host cannot be set.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the request body, like '{"id":1,"qty":2}'; at most 1 MiB.
	Body string `json:"body,omitempty"`
}

// String is the short form used in messages and reports: "GET /path".
func (r Request) String() string { return r.Method + " " + r.Path }

// Gate holds the thresholds: a metric regresses when its increase is
// significant at alpha AND its estimate is above the threshold; an interval
// that reaches past the threshold is inconclusive (docs/statistics.md).
// With perfgate gate --base <revision>, this section comes from the base
// revision's perfgate.yml.
type Gate struct {
	// CPU is the relative increase of CPU time per request that fails the
	// gate.
	CPU Fraction `json:"cpu"`
	// Allocs is the relative increase of allocations per request that
	// fails the gate.
	Allocs Fraction `json:"allocs"`
	// Bytes is the relative increase of bytes allocated per request that
	// fails the gate.
	Bytes Fraction `json:"bytes"`
	// Errors is the absolute increase of the error rate that fails the
	// gate; 0% fails on any significant new errors.
	Errors Fraction `json:"errors"`
	// Alpha is the false-failure rate of the whole gate when no metric
	// changed by more than half its threshold: over all gating metrics
	// (Holm) and all looks; above 0, at most 0.5.
	Alpha float64 `json:"alpha"`
	// Goroutines is the increase of goroutines retained per 1,000
	// requests (a leak) that fails the gate: their growth over the second
	// half of each window, so a pool that fills up early is not a leak; 0
	// fails on any significant growth.
	Goroutines float64 `json:"goroutines" unit:"goroutines per 1,000 requests"`
	// Heap is the increase of live heap retained per 1,000 requests (a
	// leak) that fails the gate: its growth, after forced GCs, over the
	// second half of each window, so a cache that fills up in the first
	// half is not a leak (the heap-fills-up hint names it); 0 fails on any
	// significant growth.
	Heap Bytes `json:"heap" unit:"bytes per 1,000 requests"`
	// Latency is the relative increase of the p50, p90 and p99 latency
	// that fails the gate; 0% means latency is reported but does not gate.
	Latency Fraction `json:"latency"`
}

// Validity says when a run is measured well enough to be compared; an
// invalid run is reported with its reason, replaced, and never counts as a
// regression. With perfgate gate --base <revision>, this section comes
// from the base revision's perfgate.yml.
type Validity struct {
	// MinRate is the least achieved rate, as a share of load.rate.
	MinRate Fraction `json:"min_rate"`
	// MaxErrors is the largest share of failed requests.
	MaxErrors Fraction `json:"max_errors"`
	// MinCPUSamples is the fewest samples each run's CPU profile must hold;
	// 0 turns the check off.
	MinCPUSamples int `json:"min_cpu_samples" unit:"samples"`
	// MaxGeneratorCPU is how busy the load generator's own CPUs may be:
	// a saturated generator sends late.
	MaxGeneratorCPU Fraction `json:"max_generator_cpu"`
	// MaxSharedCPU is how busy a duet's shared CPUs may be (base and head
	// together, of the CPUs they share): near saturation the two queue
	// behind each other and the comparison is no longer fair. Lower the
	// rate or raise resources.cpu when rounds fail it.
	MaxSharedCPU Fraction `json:"max_shared_cpu"`
}
