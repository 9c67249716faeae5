package experiment

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// tenSeconds are a window's readings: the process used 2 s of CPU over
// 10 s and peaked at 50 MiB resident.
func tenSeconds() readings {
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	return readings{
		start: target.Counters{At: start, ProcessCPUNano: 1e9, MaxRSSBytes: 40 << 20},
		end:   target.Counters{At: start.Add(10 * time.Second), ProcessCPUNano: 3e9, MaxRSSBytes: 50 << 20},
	}
}

// withCgroup adds a group's readings: 1.5 s of CPU, 25 of 100 periods
// throttled for 25 ms, an 80 MiB peak.
func withCgroup(c readings) readings {
	c.start.Cgroup = &cgroup.Stats{CPUUsageNanos: 1e9, Periods: 100, ThrottledPeriods: 10, ThrottledNanos: 5e6, MemoryPeakBytes: 70 << 20}
	c.end.Cgroup = &cgroup.Stats{CPUUsageNanos: 2.5e9, Periods: 200, ThrottledPeriods: 35, ThrottledNanos: 30e6, MemoryPeakBytes: 80 << 20}
	return c
}

// withMemStats adds 50 000 allocations of 5 MB and 5 collections of
// 100 µs each (GCs 254 to 258, across the ring's wrap-around).
func withMemStats(c readings) readings {
	pauses := make([]uint64, 256)
	for gc := uint64(254); gc <= 258; gc++ {
		pauses[(gc+255)%256] = 100_000
	}
	c.memStatsStart = &capture.MemStats{Mallocs: 1000, TotalAlloc: 1e6, NumGC: 253}
	c.memStatsEnd = &capture.MemStats{Mallocs: 51000, TotalAlloc: 6e6, NumGC: 258, PauseNs: pauses}
	return c
}

var tenSecondWindow = load.Summary{Load: report.Load{
	Requests: 5000, AchievedRate: 500, Throughput: 499, ErrorRate: 0.002,
	Latency:           report.Latency{P50: 500 * time.Microsecond, P90: 900 * time.Microsecond, P99: 2500 * time.Microsecond, Max: 12 * time.Millisecond},
	GeneratorCPUNanos: 1.8e9, GeneratorWallNanos: 10e9,
}}

func TestFigures(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	loadFigures := report.Figures{
		Requests: 5000, AchievedRate: 500, Throughput: 499, ErrorRate: 0.002,
		LatencyP50Ms: 0.5, LatencyP90Ms: 0.9, LatencyP99Ms: 2.5, LatencyMaxMs: 12,
		GeneratorCPURatio: 0.09, // 1.8 s over 10 s on 2 CPUs
	}
	with := func(edit func(*report.Figures)) report.Figures {
		f := loadFigures
		edit(&f)
		return f
	}
	tests := []struct {
		name     string
		crashed  bool
		load     func(*load.Summary)
		readings readings
		cpus     int
		want     report.Figures
	}{
		{
			name:     "process CPU when unconfined",
			readings: tenSeconds(),
			cpus:     2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
			}),
		},
		{
			name:     "cgroup CPU, throttling and peak when confined",
			readings: withCgroup(tenSeconds()),
			cpus:     2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "cgroup", 300, 0.15, 80<<20
				f.ThrottledRatio, f.ThrottledMs = 0.25, 25
			}),
		},
		{
			name: "cgroup without a CPU quota or memory peak",
			readings: func() readings {
				c := withCgroup(tenSeconds())
				c.end.Cgroup.Periods, c.end.Cgroup.ThrottledPeriods, c.end.Cgroup.ThrottledNanos = 100, 10, 5e6
				c.end.Cgroup.MemoryPeakBytes = 0
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "cgroup", 300, 0.15, 50<<20
			}),
		},
		{
			name: "cgroup read at only one end falls back to the process",
			readings: func() readings {
				c := withCgroup(tenSeconds())
				c.end.Cgroup = nil
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
			}),
		},
		{
			name:     "MemStats divided per request",
			readings: withMemStats(tenSeconds()),
			cpus:     2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.AllocsPerRequest, f.BytesPerRequest, f.GCCyclesPerRequest, f.GCPauseMicrosPerReq = f64(10), f64(1000), f64(0.001), f64(0.1)
			}),
		},
		{
			name: "retained goroutines and heap per 1,000 requests, a shrinking heap negative",
			readings: func() readings {
				c := tenSeconds()
				c.retainedStart = &report.Retained{Goroutines: 12, HeapLiveBytes: 3 << 20}
				c.retainedEnd = &report.Retained{Goroutines: 5012, HeapLiveBytes: 3<<20 - 50_000}
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = f64(1000), f64(-10_000)
			}),
		},
		{
			name: "retained figures at only one end: none",
			readings: func() readings {
				c := tenSeconds()
				c.retainedStart = &report.Retained{Goroutines: 12, HeapLiveBytes: 3 << 20}
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
			}),
		},
		{
			name: "more GCs than the pause ring holds: no pause figure",
			readings: func() readings {
				c := withMemStats(tenSeconds())
				c.memStatsStart.NumGC = 1
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.AllocsPerRequest, f.BytesPerRequest, f.GCCyclesPerRequest = f64(10), f64(1000), f64(257.0/5000)
			}),
		},
		{
			name: "MemStats at only one end: none",
			readings: func() readings {
				c := withMemStats(tenSeconds())
				c.memStatsEnd = nil
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
			}),
		},
		{
			name:     "crashed: load figures only",
			crashed:  true,
			readings: withMemStats(withCgroup(tenSeconds())),
			cpus:     2,
			want:     loadFigures,
		},
		{
			name:     "no requests: nothing to divide by",
			load:     func(l *load.Summary) { l.Requests, l.AchievedRate, l.Throughput = 0, 0, 0 },
			readings: withMemStats(tenSeconds()),
			cpus:     2,
			want:     with(func(f *report.Figures) { f.Requests, f.AchievedRate, f.Throughput = 0, 0, 0 }),
		},
		{
			name:     "generator CPUs unknown",
			readings: tenSeconds(),
			cpus:     0,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.GeneratorCPURatio = 0
			}),
		},
		{
			name: "zero-length window: no CPU cores",
			readings: func() readings {
				c := tenSeconds()
				c.end.At = c.start.At
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.MemoryPeakBytes = "process", 400, 50<<20
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tenSecondWindow
			if tt.load != nil {
				tt.load(&l)
			}
			rd := tt.readings
			rd.load = l
			got := figures(tt.crashed, rd, tt.cpus)
			if diff := diffFigures(got, tt.want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// diffFigures compares field by field, numbers to a relative 1e-9, and
// optional figures by presence and value.
func diffFigures(got, want report.Figures) string {
	var diff string
	// A new field must be compared below too.
	if n := reflect.TypeFor[report.Figures]().NumField(); n != 21 {
		diff += fmt.Sprintf("report.Figures has %d fields; diffFigures compares 21\n", n)
	}
	num := func(name string, g, w float64) {
		if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			diff += fmt.Sprintf("%s = %v, want %v\n", name, g, w)
		}
	}
	opt := func(name string, g, w *float64) {
		switch {
		case g == nil && w == nil:
		case g == nil || w == nil:
			diff += fmt.Sprintf("%s = %v, want %v\n", name, deref(g), deref(w))
		default:
			num(name, *g, *w)
		}
	}
	if got.CPUSource != want.CPUSource {
		diff += fmt.Sprintf("CPUSource = %q, want %q\n", got.CPUSource, want.CPUSource)
	}
	num("Requests", float64(got.Requests), float64(want.Requests))
	num("CPUMicrosPerRequest", got.CPUMicrosPerRequest, want.CPUMicrosPerRequest)
	opt("AllocsPerRequest", got.AllocsPerRequest, want.AllocsPerRequest)
	opt("BytesPerRequest", got.BytesPerRequest, want.BytesPerRequest)
	opt("GCCyclesPerRequest", got.GCCyclesPerRequest, want.GCCyclesPerRequest)
	opt("GCPauseMicrosPerReq", got.GCPauseMicrosPerReq, want.GCPauseMicrosPerReq)
	num("LatencyP50Ms", got.LatencyP50Ms, want.LatencyP50Ms)
	num("LatencyP90Ms", got.LatencyP90Ms, want.LatencyP90Ms)
	num("LatencyP99Ms", got.LatencyP99Ms, want.LatencyP99Ms)
	num("LatencyMaxMs", got.LatencyMaxMs, want.LatencyMaxMs)
	num("Throughput", got.Throughput, want.Throughput)
	num("AchievedRate", got.AchievedRate, want.AchievedRate)
	num("ErrorRate", got.ErrorRate, want.ErrorRate)
	num("CPUCores", got.CPUCores, want.CPUCores)
	num("ThrottledRatio", got.ThrottledRatio, want.ThrottledRatio)
	num("ThrottledMs", got.ThrottledMs, want.ThrottledMs)
	num("MemoryPeakBytes", float64(got.MemoryPeakBytes), float64(want.MemoryPeakBytes))
	num("GeneratorCPURatio", got.GeneratorCPURatio, want.GeneratorCPURatio)
	opt("GoroutinesRetainedPer1k", got.GoroutinesRetainedPer1k, want.GoroutinesRetainedPer1k)
	opt("HeapRetainedBytesPer1k", got.HeapRetainedBytesPer1k, want.HeapRetainedBytesPer1k)
	return diff
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
