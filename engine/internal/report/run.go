package report

import "time"

// Run is one fresh service process measured over one window.
type Run struct {
	Side string `json:"side"` // base | head
	// Pair is 1-based; Order is the run's position in the experiment.
	Pair  int    `json:"pair"`
	Order int    `json:"order"`
	Dir   string `json:"dir"` // relative to the results directory
	Valid bool   `json:"valid"`
	// InvalidReasons say why a run must not be compared.
	InvalidReasons []string `json:"invalid_reasons,omitempty"`
	// ServiceFailed says that the service itself failed in this run: it
	// was OOM-killed or crashed, answered more requests with errors than
	// validity.max_errors allows, or served below validity.min_rate. Such
	// a run is evidence against its side (the failures comparison), where
	// other invalid reasons (its partner's failure, a saturated load
	// generator, a busy machine) are not.
	ServiceFailed bool      `json:"service_failed,omitempty"`
	Started       time.Time `json:"started"`
	Load          Load      `json:"load"`
	Figures       Figures   `json:"figures"`
	Counters      Counters  `json:"counters"`
	Profiles      []Profile `json:"profiles"`
	// ProfileRequests is how many requests were sent while the windowed
	// profiles ran (the window plus the warm-up's last 0.7 s, with the
	// warm-up's opening bursts when the profiles started before them): the
	// denominator of per-request profile figures.
	ProfileRequests uint64 `json:"profile_requests"`
	// ProfilesUnavailable says why there are no profiles or MemStats.
	ProfilesUnavailable string `json:"profiles_unavailable,omitempty"`
	Exit                Exit   `json:"exit"`
	Timing              Timing `json:"timing"`
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
	// LayoutSeed is the -randlayout seed this run's binary was linked with
	// (a layout drawn for its round, one for both sides of a paired
	// round, else for its side), 0 when the binary kept the layout of its
	// build (a toolchain without the flag, or a recording).
	LayoutSeed uint64 `json:"layout_seed,omitempty"`
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
	// ProfileLoad, on a profile round, is its load as a multiple of
	// load.rate, and MemProfileRate the heap sampling interval its
	// services were started with (GODEBUG=memprofilerate; a service that
	// sets runtime.MemProfileRate itself keeps its own). Profile rounds
	// never gate, so they trade CPU for samples.
	ProfileLoad    float64 `json:"profile_load,omitempty"`
	MemProfileRate int     `json:"mem_profile_rate,omitempty"`
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
	// the second half of the window per 1,000 of its requests: a leak
	// keeps goroutines per request for as long as it serves, while a pool
	// that fills up stops growing.
	GoroutinesRetainedPer1k *float64 `json:"goroutines_retained_per_1k_req,omitempty"`
	// HeapRetainedBytesPer1k is the growth of the live heap (measured
	// after forced GCs, halfway and at the window's end) over the second
	// half of the window per 1,000 of its requests: a service that keeps
	// something per request grows until OOM, while a cache that fills up
	// in the first half does not grow in the second.
	HeapRetainedBytesPer1k *float64 `json:"heap_retained_bytes_per_1k_req,omitempty"`
	// GoroutinesGrowthFirstHalfPer1k and HeapGrowthFirstHalfBytesPer1k
	// are the same growths over the first half: filling up and leaking
	// alike. Not gated; they tell a cache that filled from a leak.
	GoroutinesGrowthFirstHalfPer1k *float64 `json:"goroutines_growth_first_half_per_1k_req,omitempty"`
	// SecondHalfRequests are the requests the gated growths are per: the
	// goroutines metric counts its events over them.
	SecondHalfRequests uint64 `json:"second_half_requests,omitempty"`
	// SecondHalfNewConnections is how many more inbound connections the
	// service was serving at the window's end than halfway. The load
	// generator keeps every connection it opens, so it opens one only
	// when more requests are in flight at once than ever before in the
	// run; pools sized by that peak (an HTTP client's idle connections,
	// workers started on demand) grow then and stop, which is not a leak.
	// The goroutines metric leaves such a half out, events and requests
	// alike (docs/statistics.md, "Counts: errors and goroutines").
	SecondHalfNewConnections      uint64   `json:"second_half_new_connections,omitempty"`
	HeapGrowthFirstHalfBytesPer1k *float64 `json:"heap_growth_first_half_bytes_per_1k_req,omitempty"`
}

// Counters are the raw readings at the window's start, halfway and end.
type Counters struct {
	Start         CountersAt `json:"start"`
	End           CountersAt `json:"end"`
	MemStatsStart *MemStats  `json:"memstats_start,omitempty"`
	MemStatsEnd   *MemStats  `json:"memstats_end,omitempty"`
	// RetainedStart and RetainedEnd are the goroutine count and the live
	// heap after a forced GC, read just outside the window's counters.
	RetainedStart *Retained `json:"retained_start,omitempty"`
	RetainedEnd   *Retained `json:"retained_end,omitempty"`
	// Halfway are the readings in the pause between the window's two
	// halves; Start and End above begin the first and end the second.
	Halfway *Halfway `json:"halfway,omitempty"`
}

// Halfway are the readings in the pause between a window's two halves,
// with no load on: the counters and MemStats that end the first half, the
// retained figures, and the MemStats and counters that start the second.
type Halfway struct {
	FirstHalfRequests uint64     `json:"first_half_requests"`
	End               CountersAt `json:"end"`
	Start             CountersAt `json:"start"`
	MemStatsEnd       *MemStats  `json:"memstats_end,omitempty"`
	MemStatsStart     *MemStats  `json:"memstats_start,omitempty"`
	Retained          *Retained  `json:"retained,omitempty"`
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

// Load is one attack's figures, in perfgate's own stable names (package
// load converts its Summary; vegeta's Metrics are no part of the contract).
type Load struct {
	Requests uint64 `json:"requests"`
	// RequestsFrom is how many were sent at or after the attack's CountFrom.
	RequestsFrom uint64  `json:"requests_from,omitempty"`
	TargetRate   float64 `json:"target_rate"`
	// AchievedRate is requests sent per second of the planned window.
	AchievedRate float64 `json:"achieved_rate"`
	// Throughput is successful responses per second, waiting included.
	Throughput float64 `json:"throughput"`
	// SuccessRatio is the fraction of 2xx/3xx responses; ErrorRate is 1 - SuccessRatio.
	SuccessRatio float64        `json:"success_ratio"`
	ErrorRate    float64        `json:"error_rate"`
	StatusCodes  map[string]int `json:"status_codes"`
	Errors       []string       `json:"errors,omitempty"`
	Latency      Latency        `json:"latency"`
	BytesIn      uint64         `json:"bytes_in"`
	BytesOut     uint64         `json:"bytes_out"`
	// Duration is the span of sending; Wait is the wait for the last
	// responses after it.
	Duration time.Duration `json:"duration_ns"`
	Wait     time.Duration `json:"wait_ns"`
	// PacerLag is how late requests left versus the constant schedule: a
	// lagging generator, not the service, would cut the offered load.
	PacerLagP99 time.Duration `json:"pacer_lag_p99_ns"`
	PacerLagMax time.Duration `json:"pacer_lag_max_ns"`
	// GeneratorCPUNanos is perfgate's own CPU time during the attack.
	GeneratorCPUNanos  int64 `json:"generator_cpu_ns"`
	GeneratorWallNanos int64 `json:"generator_wall_ns"`
}

// Latency quantiles in nanoseconds.
type Latency struct {
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// CountersAt are a service's cumulative process and cgroup figures at one
// instant, as its target reads them.
type CountersAt struct {
	At             time.Time `json:"at"`
	ProcessCPUNano int64     `json:"process_cpu_ns"`
	// Cgroup is nil when the service runs unconfined.
	Cgroup *CgroupStats `json:"cgroup,omitempty"`
	// MaxRSSBytes is the process's resident high-water mark (VmHWM).
	MaxRSSBytes int64 `json:"max_rss_bytes"`
}

// CgroupStats are the cumulative counters of a control group at one instant.
type CgroupStats struct {
	CPUUsageNanos      int64 `json:"cpu_usage_ns"`
	Periods            int64 `json:"nr_periods"`
	ThrottledPeriods   int64 `json:"nr_throttled"`
	ThrottledNanos     int64 `json:"throttled_ns"`
	MemoryCurrentBytes int64 `json:"memory_current_bytes"`
	MemoryPeakBytes    int64 `json:"memory_peak_bytes"`
	OOMKills           int64 `json:"oom_kills"`
}

// MemStats are the runtime.MemStats counters perfgate reads from the heap
// profile's debug=1 text.
type MemStats struct {
	TotalAlloc uint64 `json:"total_alloc"`
	Mallocs    uint64 `json:"mallocs"`
	Frees      uint64 `json:"frees"`
	HeapAlloc  uint64 `json:"heap_alloc"`
	HeapInuse  uint64 `json:"heap_inuse"`
	Sys        uint64 `json:"sys"`
	NumGC      uint64 `json:"num_gc"`
}

// Retained is what a service keeps alive at one instant: its goroutines,
// and its live heap right after a forced garbage collection. Their growth
// over a window, per request, is a leak; neither depends on the machine.
type Retained struct {
	// Goroutines leaves out the goroutines serving an inbound connection
	// (net/http's conn.serve, counted in Connections): how many
	// connections the load generator keeps open is its choice, not the
	// service's, and it moves the count by a few per 1,000 requests.
	Goroutines    uint64 `json:"goroutines"`
	Connections   uint64 `json:"serving_connections"`
	HeapLiveBytes uint64 `json:"heap_live_bytes"`
}

// Profile is one fetched pprof profile.
type Profile struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	// Samples is the number of samples (the first sample value summed;
	// for CPU profiles, 100 Hz ticks).
	Samples int64  `json:"samples"`
	Error   string `json:"error,omitempty"`
	// Rate is the sampling rate the service had set, where the service
	// says it: the mutex profile's fraction, read when that profile came
	// back empty (0 means the service never turned it on).
	Rate *int64 `json:"rate,omitempty"`
	// Finished is when the service finished sending it: a windowed
	// profile's own work must fall outside the counters' window.
	Finished time.Time `json:"finished"`
}

// Exit is how a service process ended.
type Exit struct {
	// ExitedOnItsOwn is false when the process was still running until it
	// was stopped.
	ExitedOnItsOwn bool   `json:"exited_on_its_own"`
	Code           int    `json:"code"`
	Signal         string `json:"signal,omitempty"`
	OOMKilled      bool   `json:"oom_killed"`
	// StderrTail is the end of the service's stderr, for crash reports.
	StderrTail string `json:"stderr_tail,omitempty"`
}
