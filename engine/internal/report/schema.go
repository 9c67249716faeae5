// Package report defines report.json, the versioned record of a perfgate
// experiment: the engine writes it, the renderers, `perfgate report` and
// the GitHub Action read it. Every type that appears in report.json is
// defined in this package, which imports the standard library only:
// producers (build, capture, config, load, target, experiment, gate)
// convert their values into these types, each at one place, so a JSON
// name changes only by an edit here.
//
// # Compatibility
//
// report.json's keys are a user-facing contract (docs/report-schema.md),
// read by versions of the Action and the renderers other than the engine
// that wrote the file, and compared across reports written months apart:
//
//   - A key is never renamed or removed, and its type and unit (the _ns,
//     _ms, _us suffixes; fractions, not percentages) never change, unless
//     Schema is bumped and docs/report-schema.md says what changed.
//   - New fields may be added freely. A reader must not need them: a report
//     written before a field existed lacks it, so its zero value (or its
//     absence, with omitempty) must keep the old meaning, the way a
//     missing mode means a gate.
//   - The documented values of verdict, mode, side, outcome and scale are
//     part of the contract like the keys: never renamed.
//   - Go field names may change; JSON names may not. No two keys of one
//     object may differ only in case (CheckKeys refuses such reports).
//   - A field added here is described in docs/report-schema.md in the same
//     change.
package report

import "time"

// Schema is the version of report.json this engine writes.
const Schema = 1

// Verdicts.
const (
	Pass         = "pass"
	Regression   = "regression"
	Improvement  = "improvement"
	Inconclusive = "inconclusive"
	Invalid      = "invalid"
	Error        = "error"
)

// Modes: what a report.json records. A gate compares base and head; a
// recording (perfgate run, the nightly job on main) measures one tree,
// whose runs carry side "head" so that every per-side step works unchanged.
const (
	ModeGate   = "gate"
	ModeRecord = "record"
)

// Report is report.json.
type Report struct {
	Schema  int    `json:"schema"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Mode is ModeGate or ModeRecord; reports written before the field
	// existed have none and are gates.
	Mode string `json:"mode"`
	// Label names what a recording measured (a branch or a short commit
	// SHA); empty in a gate.
	Label string `json:"label,omitempty"`
	// PairedWith is, in a recording measured as a duet against an earlier
	// commit (perfgate run --pair-with), that commit in full; Paired are
	// the paired estimates of the recorded tree against it, one per
	// relative metric, which the history keeps for trend's night-to-night
	// chain. Both are absent in a gate and in a recording measured alone.
	PairedWith string           `json:"paired_with,omitempty"`
	Paired     []PairedEstimate `json:"paired,omitempty"`
	// Complete is false while the experiment is running or when it was
	// interrupted: report.json is rewritten after every run so nothing
	// measured is lost.
	Complete bool      `json:"complete"`
	Command  []string  `json:"command"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Seed     uint64    `json:"seed"`
	// FailOn is which verdicts fail the check that ran the gate, as given
	// to perfgate gate --fail-on (the Action's fail-on input): regression
	// (a regression or an invalid measurement fails), inconclusive (an
	// inconclusive gate too) or never. The comment says by it whether this
	// verdict failed the check. Absent in a recording, and in a gate run
	// without the flag, whose comment then says nothing about the check.
	FailOn string `json:"fail_on,omitempty"`
	// Experiment is the design that was run: "duet", "sequential", or
	// "record" (one side alone). It can differ from config.experiment: a
	// target that cannot duet runs sequential and says so in Warnings.
	Experiment string `json:"experiment"`
	Config     Config `json:"config"`
	// ConfigChanges are the keys of perfgate.yml's measurement plan
	// (resources, target, load, experiment, layout, pairs, profiles,
	// profile_rounds, gate, validity, and the Go runtime's variables in
	// service.env and service.env_from) that head changed from the base
	// revision. The gate ran with the base's values (Config shows them): a
	// pull request does not relax its own gate. Absent when nothing changed
	// or the plan was head's own (see ThresholdsFrom).
	ConfigChanges []ConfigChange `json:"config_changes,omitempty"`
	// ThresholdsFrom says whose perfgate.yml decided the measurement plan
	// and its thresholds: ThresholdsFromBase when the base revision's copy
	// did (whether or not head changed it), so a change in this pull
	// request applies only to later ones; ThresholdsFromHead when the base
	// revision has no perfgate.yml at that path, so this pull request adds
	// the file and was measured with its own. Absent when neither is known
	// (a --base-dir, a file outside the repository, a base copy this
	// perfgate cannot read: a warning says which) and in a recording.
	ThresholdsFrom string      `json:"thresholds_from,omitempty"`
	Environment    Environment `json:"environment"`
	Build          Builds      `json:"build"`
	Runs           []Run       `json:"runs"`
	// Summary holds the per-side medians of the valid runs.
	Summary []Median `json:"summary"`
	// Metrics are the paired statistics; Functions and Hints (profile
	// attribution) stay empty until that step exists.
	Metrics []Metric `json:"metrics"`
	// Flame holds differential flame graph trees per profile ("cpu",
	// "allocs") for the HTML report.
	Flame map[string]*FlameNode `json:"flame,omitempty"`
	// Benchstat is the benchstat-style (unpaired) table beside the verdict.
	Benchstat []BenchRow `json:"benchstat"`
	// Counts are how many gating metrics had each outcome.
	Counts    map[string]int `json:"counts"`
	Functions []Function     `json:"functions"`
	Hints     []Hint         `json:"hints"`
	// ServiceHints are about the service rather than the change: a
	// profile it left off, so the report cannot show that cost.
	ServiceHints []Hint   `json:"service_hints,omitempty"`
	Warnings     []string `json:"warnings"`
	// MainHistory is main's nightly trend, when the gate was given one
	// (--history).
	MainHistory *MainHistory `json:"main_history,omitempty"`
	// Endpoints compare each request line of load.requests on its own, so
	// a regression of one endpoint is not diluted by the whole mix. They
	// are reported, never gating: Counts, Verdict and Holm's family ignore
	// them. Absent with a single request line (Metrics are that line), in
	// a recording, when nothing was compared, and in reports written
	// before the field existed.
	Endpoints []Endpoint `json:"endpoints,omitempty"`
}

// The values of thresholds_from.
const (
	// ThresholdsFromBase: the base revision's perfgate.yml decided the
	// measurement plan and the gate.
	ThresholdsFromBase = "base"
	// ThresholdsFromHead: the base revision has no perfgate.yml at that
	// path; the pull request's new file was measured as it is.
	ThresholdsFromHead = "head"
)

// Recording reports whether the report measured one tree (perfgate run)
// rather than comparing two: renderers show its medians instead of a
// comparison.
func (r *Report) Recording() bool { return r.Mode == ModeRecord }

// PairedRecording reports whether a recording also measured the commit it
// is paired with, as base: its runs hold both sides.
func (r *Report) PairedRecording() bool { return r.Recording() && r.PairedWith != "" }

// PairedEstimate is one metric of a paired recording: the Hodges–Lehmann
// estimate of head against base over the valid rounds (a fraction, from
// the rounds' log ratios) and its interval at level Level (two-sided).
type PairedEstimate struct {
	Name     string     `json:"name"`
	Estimate float64    `json:"estimate"`
	CI       [2]float64 `json:"ci"`
	Level    float64    `json:"level"`
	Pairs    int        `json:"pairs"`
}

// ConfigChange is one key of the measurement plan whose value differs
// between the base revision's perfgate.yml and head's; values are as
// report.json's config writes them, except that lists of strings and of
// requests are joined with ", " (requests in their short form, GET /path,
// unless only their headers or bodies differ).
type ConfigChange struct {
	Key  string `json:"key"` // e.g. gate.cpu, pairs.min, load.requests
	Base string `json:"base"`
	Head string `json:"head"`
}

// Environment is where the experiment ran.
type Environment struct {
	Host      string `json:"host"`
	CPUModel  string `json:"cpu_model"`
	CPUs      int    `json:"cpus"`
	Kernel    string `json:"kernel"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"go_version"`
	// Engine is this perfgate's version.
	Engine string `json:"engine"`
	TargetEnvironment
}

// TargetEnvironment is what the target knows about where it runs the
// service; its keys sit beside the host's in environment.
type TargetEnvironment struct {
	Target string `json:"target"`
	// Confinement is "cgroup v1", "cgroup v2" or "unconfined".
	Confinement   string `json:"confinement"`
	CgroupVersion int    `json:"cgroup_version,omitempty"`
	// Limits are the limits as read back from the kernel when confined.
	Limits CgroupLimits `json:"limits"`
	// ServiceCPUs and GeneratorCPUs are the CPU sets the service and the
	// load generator are pinned to (empty when not pinned).
	ServiceCPUs   []int `json:"service_cpus,omitempty"`
	GeneratorCPUs []int `json:"generator_cpus,omitempty"`
	// GOMAXPROCS is the value the service runs with and where it comes
	// from ("set from the CPU limit" or "set by service.env").
	GOMAXPROCS       int    `json:"gomaxprocs"`
	GOMAXPROCSSource string `json:"gomaxprocs_source"`
	// Warnings are conditions that make numbers less trustworthy.
	Warnings []string `json:"warnings,omitempty"`
	// PrepareSeconds is how long the target took to get ready for the
	// first round (kind: creating the cluster; kubernetes: the namespace
	// and the load generator), kept apart from the gate's rounds.
	PrepareSeconds float64 `json:"prepare_seconds,omitempty"`
}

// CgroupLimits are the confinement of one service process.
type CgroupLimits struct {
	// CPUMillicores is the CPU quota in thousandths of a core (1000 = one core).
	CPUMillicores int64 `json:"cpu_millicores"`
	// MemoryBytes is the hard memory limit.
	MemoryBytes int64 `json:"memory_bytes"`
	// CPUPeriodMicros is the CFS period the quota applies to.
	CPUPeriodMicros int64 `json:"cpu_period_us"`
}

// Builds are the two binaries compared.
type Builds struct {
	Base Binary `json:"base"`
	Head Binary `json:"head"`
	// Error is the compiler output tail of a failed build.
	Error string `json:"error,omitempty"`
}

// Binary is one built side (package build writes it).
type Binary struct {
	Label string `json:"label"`
	// Source is the tree that was built; Revision its git commit when known.
	Source   string `json:"source"`
	Revision string `json:"revision,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	// Module is the built main module's path; ModuleDir its directory
	// relative to the repository's root ("" at the root). Together they
	// map a profile's file names to the repository's files.
	Module    string `json:"module,omitempty"`
	ModuleDir string `json:"module_dir,omitempty"`
	Path      string `json:"path"`
	// BuildInfo is `go version -m` of the binary.
	BuildInfo string `json:"build_info"`
	// TextBytes is the size of the binary's executable code (its text
	// section), absent when it could not be read.
	TextBytes uint64 `json:"text_bytes,omitempty"`
	// LayoutPadding is the never-run code every relink of layout: random
	// added to this side so that its text section is as large as the
	// other side's; nil when it was not padded.
	LayoutPadding *LayoutPadding `json:"layout_padding,omitempty"`
	// LayoutAlign is the function alignment, in bytes, every relink of
	// layout: random linked this side with (-funcalign); absent when the
	// relinks kept the linker's own alignment or there were none.
	LayoutAlign int `json:"layout_align,omitempty"`
	// LayoutPairing is how every relink of layout: random drew this
	// side's layout against the other side's: paired (one seed per round
	// for both, functions ordered by perfgate's paired-layout linker),
	// seed (one seed per round for both, ordered by the toolchain's own
	// linker, when perfgate's could not be built: alike only when both
	// sides have the same functions), independent, or alternate (odd
	// rounds paired, even ones independent; a run's layout_seed says
	// which); absent when there were no relinks.
	LayoutPairing string `json:"layout_pairing,omitempty"`
}

// LayoutPadding is never-run code added to one side's relinks. The
// linker's -randlayout scatters the hot functions over the whole text
// section, so a larger section alone (code added that the load never
// runs) slows the hot path; padding the smaller side gives both sides
// the same section size (docs/benchmarks.md, "Layout padding").
type LayoutPadding struct {
	// Functions is how many never-run functions were added.
	Functions int `json:"functions"`
	// Bytes is how much they grew the text section.
	Bytes uint64 `json:"bytes"`
}

// Median is one figure's median over a side's valid runs.
type Median struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	Delta float64 `json:"delta"` // (head-base)/base
	// BaseRuns and HeadRuns are how many valid runs the medians use.
	BaseRuns int `json:"base_runs"`
	HeadRuns int `json:"head_runs"`
}

// Metric is one metric's paired comparison: the Hodges–Lehmann estimate of
// the change with its confidence interval, the one-sided signed-rank
// p-value and the outcome. Delta, CI, Threshold and Detectable are
// fractions for relative metrics (scale "relative") and absolute amounts
// for the error rate (scale "absolute").
type Metric struct {
	Name  string `json:"name"`
	Unit  string `json:"unit"`
	Scale string `json:"scale"`
	// Base and Head are the sides' medians over the pairs used.
	Base    float64    `json:"base"`
	Head    float64    `json:"head"`
	Delta   float64    `json:"delta"`
	CI      [2]float64 `json:"ci"`
	CILevel float64    `json:"ci_level"`
	// P is the one-sided p-value for an increase of more than δ0, half
	// the threshold (stats.IndifferenceShare), Holm-adjusted across the
	// gating metrics and for the look; PImprovement the same for a
	// decrease of more than δ0. ShownP is the one that decided.
	P            float64 `json:"p"`
	PImprovement float64 `json:"p_improvement"`
	Outcome      string  `json:"outcome"` // regression | improvement | unchanged | inconclusive
	Threshold    float64 `json:"threshold"`
	Gates        bool    `json:"gates"`
	Pairs        int     `json:"pairs"`
	// Detectable is the smallest change the decision at this look catches
	// with 90% power, the threshold condition included; absent when too
	// few pairs could reach significance.
	Detectable *float64 `json:"detectable,omitempty"`
	// DetectableRange is Detectable if the noise were as low (first) or as
	// high (second) as the pairs plausibly allow (the central 80% of the
	// noise levels its simulation draws from): how far "could detect" can
	// be trusted. Absent where Detectable is, and for failures.
	DetectableRange *[2]float64 `json:"detectable_range,omitempty"`
	// OC is the decision's operating characteristic at this look, for
	// this gate's own noise: the share of experiments like this one
	// (simulated from its rounds, as Detectable is) that it would call a
	// regression at true changes from 0 to twice the threshold. Only for
	// gating metrics with a threshold above 0 and a Detectable.
	OC []OCPoint `json:"oc,omitempty"`
	// RuledOutAbove is the increase this look rules out at the miss rate
	// (10%, spent over the looks as alpha is: docs/statistics.md,
	// "Unchanged at a miss rate"), held with confidence RuledOutLevel:
	// unchanged needs it at most the threshold. Both are absent for
	// failures, with no pairs, and in reports written before the rule,
	// which decided unchanged by the interval's upper end (PassBound).
	RuledOutAbove float64 `json:"ruled_out_above,omitempty"`
	RuledOutLevel float64 `json:"ruled_out_level,omitempty"`
	// Level is the significance level the look spent (a part of
	// gate.alpha, docs/statistics.md); Family the number of gating
	// metrics in Holm's family at that look, and InFamily whether this
	// metric was one (a metric with no non-zero difference leaves it).
	Level    float64 `json:"level"`
	Family   int     `json:"family"`
	InFamily bool    `json:"in_family"`
}

// OCPoint is one point of an operating characteristic: at a true change
// of Change (the metric's scale: a fraction for a relative metric), the
// share Caught of experiments called a regression.
type OCPoint struct {
	Change float64 `json:"change"`
	Caught float64 `json:"caught"`
}

// Endpoint is one request line of load.requests (method and path with its
// query, as configured; lines that differ only in headers or body are one
// endpoint) compared across the valid pairs like Metrics, from the vegeta
// results of each run's window (results.bin).
type Endpoint struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Pairs is the number of valid pairs in which both sides answered this
	// line at least once.
	Pairs int `json:"pairs"`
	// BaseRequests and HeadRequests are the median requests of this line
	// per window: a p99 over a few hundred requests rests on a handful.
	BaseRequests float64 `json:"base_requests"`
	HeadRequests float64 `json:"head_requests"`
	// Metrics are the catalog's latency_p50, latency_p90, latency_p99 and
	// errors of this line alone, with the same paired statistics, scale
	// and threshold as in Metrics, at the look's level without Holm's
	// correction: Gates is always false.
	Metrics []Metric `json:"metrics"`
	// Summary holds the medians of the line's figures the catalog does not
	// compare pair by pair (throughput).
	Summary []Median `json:"summary,omitempty"`
}

// Function is one function's change of cost between the sides' merged
// profiles, per request (per run for goroutines), kept only when beyond
// sampling noise.
type Function struct {
	Profile string `json:"profile"` // cpu | allocs | mutex | block | goroutine
	// Name is normalised across builds (closure numbers, generic type
	// arguments); Kind is flat (the function itself) or cum (with callees).
	Name  string  `json:"name"`
	Kind  string  `json:"kind"`
	Unit  string  `json:"unit"`
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	Delta float64 `json:"delta"`
	// Status is changed, new (only in head) or gone (only in base).
	Status string `json:"status"`
	// BaseSamples and HeadSamples are the raw samples behind the figures
	// (estimated from bytes for heap sampling), which set the noise.
	BaseSamples float64 `json:"base_samples"`
	HeadSamples float64 `json:"head_samples"`
	// File and Line are where the function is defined, as the head's
	// binary recorded it (with -trimpath, a module's import path plus the
	// file name; the base's for a function gone from the head).
	File string `json:"file,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Via, on a flat row, is the runtime function its cost was in when
	// the row's function reached the runtime for it (runtime.mapassign,
	// runtime.makeslice): the cost is the function's own all the same.
	Via string `json:"via,omitempty"`
	// CallLine, on a flat row, is the line of the function with most of
	// its samples (head's and base's together).
	CallLine int64 `json:"call_line,omitempty"`
	// Caller, on a row of code that is not the service's own (the
	// standard library, a dependency), is the service's function nearest
	// above it on the stacks with most of its samples, and the line of it
	// that made the call: on a flat row, above its cost's site; on a cum
	// row, above the function itself.
	Caller     string `json:"caller,omitempty"`
	CallerLine int64  `json:"caller_line,omitempty"`
}

// Hint is a root-cause hint with its evidence (next step).
type Hint struct {
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Evidence string `json:"evidence"`
}

// BenchRow is one line of the benchstat-style table: medians with the 95%
// interval's half-width, and the Mann–Whitney comparison ("~" when not
// significant at 0.05).
type BenchRow struct {
	Metric    string   `json:"metric"`
	Base      float64  `json:"base"`
	BaseRange string   `json:"base_range"`
	Head      float64  `json:"head"`
	HeadRange string   `json:"head_range"`
	Delta     string   `json:"delta"`
	P         float64  `json:"p"`
	Note      string   `json:"note"`
	Warnings  []string `json:"warnings,omitempty"`
}

// FlameNode is one frame of a differential flame graph: the cost per
// request of this call path in base and in head (cumulative, so a node is
// at least the sum of its children).
type FlameNode struct {
	Name     string       `json:"n"`
	Base     float64      `json:"b"`
	Head     float64      `json:"h"`
	Children []*FlameNode `json:"c,omitempty"`
}

// ShownP is the p-value of the test in the direction of m's change: an
// improvement's, and any decrease's, is the test of a decrease; every
// other's the test of an increase. A significant decrease too small to be
// an improvement thus shows its small p, not the increase test's p = 1,
// which beside an interval entirely below zero reads as a contradiction.
func (m Metric) ShownP() float64 {
	if m.Outcome == "improvement" || m.Delta < 0 && m.Outcome != "regression" {
		return m.PImprovement
	}
	return m.P
}

// PassBound is the increase m's look ruled out, and with what confidence:
// what "unchanged" was decided by. A report written before the miss rate
// decided it by the interval's upper end.
func (m Metric) PassBound() (bound, level float64) {
	if m.RuledOutLevel > 0 {
		return m.RuledOutAbove, m.RuledOutLevel
	}
	return m.CI[1], m.CILevel
}
