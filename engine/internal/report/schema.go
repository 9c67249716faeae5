// Package report defines report.json, the versioned record of a perfgate
// experiment: the engine writes it, the renderers and the GitHub Action
// read it. Field names are a user-facing contract (docs/report-schema.md):
// add fields freely, never rename or remove one without bumping Schema.
package report

import (
	"time"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/target"
)

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
	// Complete is false while the experiment is running or when it was
	// interrupted: report.json is rewritten after every run so nothing
	// measured is lost.
	Complete bool      `json:"complete"`
	Command  []string  `json:"command"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Seed     uint64    `json:"seed"`
	// Experiment is the design that was run: "duet", "sequential", or
	// "record" (one side alone). It can differ from config.experiment: a
	// target that cannot duet runs sequential and says so in Warnings.
	Experiment string        `json:"experiment"`
	Config     config.Config `json:"config"`
	// ConfigChanges are the keys of perfgate.yml's gate: and validity:
	// sections that head changed from the base revision. The gate ran with
	// the base's values (Config shows them): a pull request does not relax
	// its own gate. Absent when nothing changed or --base was a directory.
	ConfigChanges []ConfigChange `json:"config_changes,omitempty"`
	Environment   Environment    `json:"environment"`
	Build         Builds         `json:"build"`
	Runs          []Run          `json:"runs"`
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
	Warnings  []string       `json:"warnings"`
}

// Recording reports whether the report measured one tree (perfgate run)
// rather than comparing two: renderers show its medians instead of a
// comparison.
func (r *Report) Recording() bool { return r.Mode == ModeRecord }

// ConfigChange is one gate or validity key whose value differs between the
// base revision's perfgate.yml and head's; values are as report.json's
// config writes them.
type ConfigChange struct {
	Key  string `json:"key"` // e.g. gate.cpu, validity.min_rate
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
	target.Environment
}

// Builds are the two binaries compared.
type Builds struct {
	Base build.Binary `json:"base"`
	Head build.Binary `json:"head"`
	// Error is the compiler output tail of a failed build.
	Error string `json:"error,omitempty"`
}

// Run is one fresh service process measured over one window.
type Run struct {
	Side string `json:"side"` // base | head
	// Pair is 1-based; Order is the run's position in the experiment.
	Pair  int    `json:"pair"`
	Order int    `json:"order"`
	Dir   string `json:"dir"` // relative to the results directory
	Valid bool   `json:"valid"`
	// InvalidReasons say why a run must not be compared.
	InvalidReasons []string         `json:"invalid_reasons,omitempty"`
	Started        time.Time        `json:"started"`
	Load           load.Summary     `json:"load"`
	Figures        Figures          `json:"figures"`
	Counters       Counters         `json:"counters"`
	Profiles       []capture.Result `json:"profiles"`
	// ProfileRequests is how many requests were sent while the windowed
	// profiles ran (the window plus the warm-up's last 0.7 s): the
	// denominator of per-request profile figures.
	ProfileRequests uint64 `json:"profile_requests"`
	// ProfilesUnavailable says why there are no profiles or MemStats.
	ProfilesUnavailable string      `json:"profiles_unavailable,omitempty"`
	Exit                target.Exit `json:"exit"`
	Timing              Timing      `json:"timing"`
	// Seconds are the window's per-second samples (duet rounds).
	Seconds []Second `json:"seconds,omitempty"`
	// Duet describes the run's round when base and head ran at the same
	// time (experiment: duet); nil in a sequential experiment.
	Duet *Duet `json:"duet,omitempty"`
	// ProfileRound marks a duet round run after the gating rounds only
	// to capture profiles: profiling both sides of a duet biased its CPU
	// comparison (docs/benchmarks.md), so the gating rounds capture none,
	// and these rounds feed attribution and hints, never the statistics.
	ProfileRound bool `json:"profile_round,omitempty"`
}

// Compared reports whether a run's figures enter the statistics: it is
// valid and not a profile round.
func (r Run) Compared() bool { return r.Valid && !r.ProfileRound }

// Duet is one side's part in a duet round. Which side starts first and
// which leads the balanced request order are drawn per round from the
// experiment's seed.
type Duet struct {
	StartedFirst bool `json:"started_first"`
	LedOrder     bool `json:"led_order"`
	// SharedCPUBusy is base's and head's CPU use together over the CPUs
	// they share; above validity.max_shared_cpu the round is invalid.
	SharedCPUBusy float64 `json:"shared_cpu_busy"`
}

// Figures are a run's per-request numbers, the ones that are compared.
// Pointers are absent when the service exposes no MemStats.
type Figures struct {
	Requests            uint64   `json:"requests"`
	CPUMicrosPerRequest float64  `json:"cpu_us_per_req"`
	CPUSource           string   `json:"cpu_source"` // cgroup | process
	AllocsPerRequest    *float64 `json:"allocs_per_req,omitempty"`
	BytesPerRequest     *float64 `json:"bytes_per_req,omitempty"`
	GCCyclesPerRequest  *float64 `json:"gc_cycles_per_req,omitempty"`
	GCPauseMicrosPerReq *float64 `json:"gc_pause_us_per_req,omitempty"`
	LatencyP50Ms        float64  `json:"latency_p50_ms"`
	LatencyP90Ms        float64  `json:"latency_p90_ms"`
	LatencyP99Ms        float64  `json:"latency_p99_ms"`
	LatencyMaxMs        float64  `json:"latency_max_ms"`
	Throughput          float64  `json:"throughput"`
	AchievedRate        float64  `json:"achieved_rate"`
	ErrorRate           float64  `json:"error_rate"`
	// CPUCores is the service's average CPU use over the window.
	CPUCores float64 `json:"cpu_cores"`
	// ThrottledRatio is throttled periods / periods in the window.
	ThrottledRatio  float64 `json:"throttled_ratio"`
	ThrottledMs     float64 `json:"throttled_ms"`
	MemoryPeakBytes int64   `json:"memory_peak_bytes"`
	// GeneratorCPURatio is the load generator's CPU use over the CPUs it
	// has; near 1 means it, not the service, limited the load.
	GeneratorCPURatio float64 `json:"generator_cpu_ratio"`
	// GoroutinesRetainedPer1k is the growth of the goroutine count over
	// the window per 1,000 requests: a leak keeps goroutines per request.
	GoroutinesRetainedPer1k *float64 `json:"goroutines_retained_per_1k_req,omitempty"`
	// HeapRetainedBytesPer1k is the growth of the live heap (measured
	// after a forced GC at both edges of the window) per 1,000 requests:
	// a service that keeps something per request grows until OOM.
	HeapRetainedBytesPer1k *float64 `json:"heap_retained_bytes_per_1k_req,omitempty"`
}

// Counters are the raw readings at the window's start and end.
type Counters struct {
	Start         target.Counters   `json:"start"`
	End           target.Counters   `json:"end"`
	MemStatsStart *capture.MemStats `json:"memstats_start,omitempty"`
	MemStatsEnd   *capture.MemStats `json:"memstats_end,omitempty"`
	// RetainedStart and RetainedEnd are the goroutine count and the live
	// heap after a forced GC, read just outside the window's counters.
	RetainedStart *capture.Retained `json:"retained_start,omitempty"`
	RetainedEnd   *capture.Retained `json:"retained_end,omitempty"`
}

// Second is one second of a window: the service's cumulative CPU time and
// the requests sent to it since the window began. A duet's two sides are
// sampled back to back, so their per-second CPU per request can be drawn
// side by side (report.html).
type Second struct {
	// OffsetMs is the time since the window began.
	OffsetMs float64 `json:"offset_ms"`
	CPUNanos int64   `json:"cpu_ns"`
	Requests uint64  `json:"requests"`
}

// Timing is where a run's wall time went; everything but the warm-up and
// the window is engine overhead.
type Timing struct {
	StartToReadyMs float64 `json:"start_to_ready_ms"`
	WarmupMs       float64 `json:"warmup_ms"`
	WindowMs       float64 `json:"window_ms"`
	CaptureMs      float64 `json:"capture_ms"`
	StopMs         float64 `json:"stop_ms"`
	TotalMs        float64 `json:"total_ms"`
	OverheadMs     float64 `json:"overhead_ms"`
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
	// P is the one-sided p-value for an increase (Holm-adjusted across
	// the gating metrics); PImprovement the same for a decrease.
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
	// Level is the significance level the look spent (a part of
	// gate.alpha, docs/statistics.md); Family the number of gating
	// metrics in Holm's family at that look, and InFamily whether this
	// metric was one (a metric with no non-zero difference leaves it).
	Level    float64 `json:"level"`
	Family   int     `json:"family"`
	InFamily bool    `json:"in_family"`
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
