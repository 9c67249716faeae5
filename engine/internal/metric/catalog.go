package metric

import (
	"math"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// The metrics, by the name code refers to them with. Their order in
// Catalog is the order of every table: the gating metrics first.
var (
	CPU = &Metric{Name: "cpu", Unit: "µs/req", Title: "CPU per request", Value: measured, Scale: Relative,
		Gate:  &Gate{Key: "gate.cpu", Threshold: func(g config.Gate) float64 { return float64(g.CPU) }},
		Bench: &Bench{Unit: "cpu-ns/req", Factor: 1e3}}
	Allocs = &Metric{Name: "allocs", Unit: "allocs/req", Title: "allocations per request", Value: func(f report.Figures) (float64, bool) { return optional(f.AllocsPerRequest) }, Scale: Relative, Portable: true,
		Gate:  &Gate{Key: "gate.allocs", Threshold: func(g config.Gate) float64 { return float64(g.Allocs) }},
		Bench: &Bench{Unit: "allocs/req", Factor: 1, Digits: 2}}
	Bytes = &Metric{Name: "bytes", Unit: "B/req", Title: "bytes allocated per request", Value: func(f report.Figures) (float64, bool) { return optional(f.BytesPerRequest) }, Scale: Relative, Display: BinaryBytes, Portable: true,
		Gate:  &Gate{Key: "gate.bytes", Threshold: func(g config.Gate) float64 { return float64(g.Bytes) }},
		Bench: &Bench{Unit: "B/req", Factor: 1, Digits: 1}}
	// Errors are compared over every round, valid or not: a round made
	// invalid by head's errors is the errors metric's own evidence.
	Errors = &Metric{Name: "errors", Unit: "ratio", Title: "error rate", Value: func(f report.Figures) (float64, bool) { return f.ErrorRate, true }, Scale: Absolute, Display: Percentage, AllRounds: true,
		Events: func(f report.Figures) (float64, float64, bool) {
			return math.Round(f.ErrorRate * float64(f.Requests)), float64(f.Requests), f.Requests > 0
		},
		Gate:  &Gate{Key: "gate.errors", Threshold: func(g config.Gate) float64 { return float64(g.Errors) }},
		Bench: &Bench{Unit: "errors/req", Factor: 1, Digits: 6}}
	// Goroutines and Heap are leaks: what a window's requests left alive.
	// Both are near 0 and can be negative, so they are absolute, and
	// benchstat's relative deltas would say nothing about them.
	Goroutines = &Metric{Name: "goroutines", Unit: "goroutines/1k req", Title: "goroutines left alive per 1k requests", Value: func(f report.Figures) (float64, bool) { return optional(f.GoroutinesRetainedPer1k) }, Scale: Absolute,
		Events: func(f report.Figures) (float64, float64, bool) {
			// The growth is over the window's second half (reports
			// from before the halves: over the whole window).
			requests := f.SecondHalfRequests
			if requests == 0 {
				requests = f.Requests
			}
			// A half in which the load opened a connection had more
			// requests in flight than ever before: pools sized by that
			// peak grew in it, so its growth cannot tell a leak.
			if f.GoroutinesRetainedPer1k == nil || requests == 0 || f.SecondHalfNewConnections > 0 {
				return 0, 0, false
			}
			thousands := float64(requests) / 1000
			return math.Round(*f.GoroutinesRetainedPer1k * thousands), thousands, true
		},
		Gate: &Gate{Key: "gate.goroutines", Threshold: func(g config.Gate) float64 { return g.Goroutines }}}
	Heap = &Metric{Name: "heap", Unit: "B/1k req", Title: "heap retained per 1k requests", Value: func(f report.Figures) (float64, bool) { return optional(f.HeapRetainedBytesPer1k) }, Scale: Absolute, Display: BinaryBytes,
		Gate: &Gate{Key: "gate.heap", Threshold: func(g config.Gate) float64 { return float64(g.Heap) }}}
	GC = &Metric{Name: "gc", Unit: "GC/req", Title: "GC cycles per request", Value: func(f report.Figures) (float64, bool) { return optional(f.GCCyclesPerRequest) }, Scale: Relative,
		Bench: &Bench{Unit: "gc/req", Factor: 1, Digits: 6}}
	LatencyP50 = latency("latency_p50", "median latency", "p50-ns", func(f report.Figures) float64 { return f.LatencyP50Ms })
	LatencyP90 = latency("latency_p90", "p90 latency", "p90-ns", func(f report.Figures) float64 { return f.LatencyP90Ms })
	LatencyP99 = latency("latency_p99", "p99 latency", "p99-ns", func(f report.Figures) float64 { return f.LatencyP99Ms })
	LatencyMax = &Metric{Name: "latency_max", Unit: "ms", Title: "maximum latency", Value: func(f report.Figures) (float64, bool) { return f.LatencyMaxMs, true }, Scale: Relative,
		Bench: &Bench{Unit: "max-ns", Factor: 1e6}}
	Throughput = &Metric{Name: "throughput", Unit: "req/s", Title: "throughput", Value: func(f report.Figures) (float64, bool) { return f.Throughput, true }, Scale: Relative, HigherIsBetter: true,
		Bench: &Bench{Unit: "req/s", Factor: 1, Digits: 2}}
	Throttled = &Metric{Name: "throttled", Unit: "ratio", Title: "share of throttled CPU periods", Value: func(f report.Figures) (float64, bool) { return f.ThrottledRatio, true }, Scale: Absolute, Display: Percentage}
	// MemoryPeak is compared and shown but never gates: the peak follows
	// the garbage collector's pacing as much as the code.
	MemoryPeak = &Metric{Name: "memory_peak", Unit: "MiB", Title: "peak memory", Value: memoryPeak, Scale: Relative,
		Gate: &Gate{Threshold: reportingThreshold, Gates: never}}
)

// Catalog is every metric, in the order tables show them.
var Catalog = []*Metric{CPU, Allocs, Bytes, Errors, Goroutines, Heap, GC, LatencyP50, LatencyP90, LatencyP99, LatencyMax, Throughput, Throttled, MemoryPeak}

// Failures is the share of rounds in which a side's service failed
// (report.Run.ServiceFailed: OOM-killed, crashed, too many errors, too
// slow for the rate). It is not a figure of one run, so it is not in the
// Catalog, has no Value and no median: verdict counts the rounds. It
// always gates, and any significant excess of head's failures over base's
// is a regression: a service that fails more often is never a change too
// small to matter.
var Failures = &Metric{Name: "failures", Unit: "ratio", Title: "rounds in which the service failed", Scale: Absolute, Display: Percentage,
	Gate: &Gate{Threshold: func(config.Gate) float64 { return 0 }}}

// measured is CPU per request, which a run has unless its service died
// before the window's counters were read.
func measured(f report.Figures) (float64, bool) { return f.CPUMicrosPerRequest, f.CPUSource != "" }

// memoryPeak is in MiB; a run that could read no peak has 0.
func memoryPeak(f report.Figures) (float64, bool) {
	return float64(f.MemoryPeakBytes) / (1 << 20), f.MemoryPeakBytes > 0
}

func optional(v *float64) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return *v, true
}

// latency is a latency quantile: it gates when gate.latency is set.
func latency(name, title, benchUnit string, get func(report.Figures) float64) *Metric {
	return &Metric{Name: name, Unit: "ms", Title: title, Value: func(f report.Figures) (float64, bool) { return get(f), true }, Scale: Relative,
		Gate:  &Gate{Key: "gate.latency", Threshold: latencyThreshold, Gates: func(g config.Gate) bool { return g.Latency > 0 }},
		Bench: &Bench{Unit: benchUnit, Factor: 1e6}}
}

// latencyThreshold is gate.latency, or (when latency does not gate) the
// threshold reported-only metrics are shown against.
func latencyThreshold(g config.Gate) float64 {
	if g.Latency > 0 {
		return float64(g.Latency)
	}
	return reportingThreshold(g)
}

// reportingThreshold is what a metric that does not gate is measured
// against, so its outcome is still on a sensible scale: the CPU threshold.
func reportingThreshold(g config.Gate) float64 { return float64(g.CPU) }

func never(config.Gate) bool { return false }
