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

// tenSeconds are a window's readings: two halves of 5 s and 2,500
// requests with a half-second pause between them; the process used 2 s of
// CPU in the halves (and 0.3 s in the pause, which counts in neither) and
// peaked at 50 MiB resident.
func tenSeconds() readings {
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	halfLoad := load.Summary{Load: report.Load{Requests: 2500}}
	return readings{halves: [2]halfReadings{
		{
			load:  halfLoad,
			start: target.Counters{At: start, ProcessCPUNano: 1e9, MaxRSSBytes: 40 << 20},
			end:   target.Counters{At: start.Add(5 * time.Second), ProcessCPUNano: 2e9, MaxRSSBytes: 45 << 20},
		},
		{
			load:  halfLoad,
			start: target.Counters{At: start.Add(5500 * time.Millisecond), ProcessCPUNano: 2.3e9, MaxRSSBytes: 45 << 20},
			end:   target.Counters{At: start.Add(10500 * time.Millisecond), ProcessCPUNano: 3.3e9, MaxRSSBytes: 50 << 20},
		},
	}}
}

// withCgroup adds a group's readings: 1.5 s of CPU, 25 of 100 periods
// throttled for 25 ms, an 80 MiB peak (and in the pause 0.1 s of CPU, 3
// of 5 periods throttled for 2 ms, which count in neither half).
func withCgroup(c readings) readings {
	c.halves[0].start.Cgroup = &cgroup.Stats{CPUUsageNanos: 1e9, Periods: 100, ThrottledPeriods: 10, ThrottledNanos: 5e6, MemoryPeakBytes: 70 << 20}
	c.halves[0].end.Cgroup = &cgroup.Stats{CPUUsageNanos: 1.75e9, Periods: 150, ThrottledPeriods: 22, ThrottledNanos: 17e6, MemoryPeakBytes: 75 << 20}
	c.halves[1].start.Cgroup = &cgroup.Stats{CPUUsageNanos: 1.85e9, Periods: 155, ThrottledPeriods: 25, ThrottledNanos: 19e6, MemoryPeakBytes: 75 << 20}
	c.halves[1].end.Cgroup = &cgroup.Stats{CPUUsageNanos: 2.6e9, Periods: 205, ThrottledPeriods: 38, ThrottledNanos: 32e6, MemoryPeakBytes: 80 << 20}
	return c
}

// withMemStats adds 50 000 allocations of 5 MB and 5 collections of
// 100 µs each (GCs 254-255 and 258-260, across the ring's wrap-around);
// the pause's two forced collections of 1 ms, 500 allocations and 0.2 MB
// count in neither half.
func withMemStats(c readings) readings {
	pauses := make([]uint64, 256)
	for gc := uint64(254); gc <= 260; gc++ {
		pauses[(gc+255)%256] = 100_000
	}
	pauses[(256+255)%256], pauses[(257+255)%256] = 1e6, 1e6
	c.halves[0].memStatsStart = &capture.MemStats{Mallocs: 1000, TotalAlloc: 1e6, NumGC: 253}
	c.halves[0].memStatsEnd = &capture.MemStats{Mallocs: 26000, TotalAlloc: 3.5e6, NumGC: 255, PauseNs: pauses}
	c.halves[1].memStatsStart = &capture.MemStats{Mallocs: 26500, TotalAlloc: 3.7e6, NumGC: 257, PauseNs: pauses}
	c.halves[1].memStatsEnd = &capture.MemStats{Mallocs: 51500, TotalAlloc: 6.2e6, NumGC: 260, PauseNs: pauses}
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
				for i := range c.halves {
					h := &c.halves[i]
					h.end.Cgroup.Periods, h.end.Cgroup.ThrottledPeriods, h.end.Cgroup.ThrottledNanos = h.start.Cgroup.Periods, h.start.Cgroup.ThrottledPeriods, h.start.Cgroup.ThrottledNanos
					h.end.Cgroup.MemoryPeakBytes = 0
				}
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
				c.halves[1].end.Cgroup = nil
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
			name: "retained goroutines and heap per 1,000 requests of each half, a shrinking heap negative",
			readings: func() readings {
				c := tenSeconds()
				c.retained = []*report.Retained{
					{Goroutines: 12, HeapLiveBytes: 3 << 20},
					{Goroutines: 2512, HeapLiveBytes: 3<<20 + 1_000_000},
					{Goroutines: 5012, HeapLiveBytes: 3<<20 + 1_000_000 - 25_000},
				}
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.GoroutinesGrowthFirstHalfPer1k, f.HeapGrowthFirstHalfBytesPer1k = f64(1000), f64(400_000)
				f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = f64(1000), f64(-10_000)
				f.SecondHalfRequests = 2500
			}),
		},
		{
			name: "a cache filled in the first half: no growth retained in the second",
			readings: func() readings {
				c := tenSeconds()
				c.retained = []*report.Retained{
					{Goroutines: 12, HeapLiveBytes: 3 << 20},
					{Goroutines: 12, HeapLiveBytes: 3<<20 + 1_000_000},
					{Goroutines: 12, HeapLiveBytes: 3<<20 + 1_000_000},
				}
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.GoroutinesGrowthFirstHalfPer1k, f.HeapGrowthFirstHalfBytesPer1k = f64(0), f64(400_000)
				f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = f64(0), f64(0)
				f.SecondHalfRequests = 2500
			}),
		},
		{
			name: "inbound connections opened in the second half are counted; closed ones are not",
			readings: func() readings {
				c := tenSeconds()
				c.retained = []*report.Retained{
					{Goroutines: 7, Connections: 9},
					{Goroutines: 7, Connections: 4},
					{Goroutines: 19, Connections: 31},
				}
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.GoroutinesGrowthFirstHalfPer1k, f.HeapGrowthFirstHalfBytesPer1k = f64(0), f64(0)
				f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = f64(4.8), f64(0)
				f.SecondHalfRequests, f.SecondHalfNewConnections = 2500, 27
			}),
		},
		{
			name: "retained figures at the start only: none",
			readings: func() readings {
				c := tenSeconds()
				c.retained = []*report.Retained{{Goroutines: 12, HeapLiveBytes: 3 << 20}, nil, nil}
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
				c.halves[1].memStatsEnd.NumGC = 557
				return c
			}(),
			cpus: 2,
			want: with(func(f *report.Figures) {
				f.CPUSource, f.CPUMicrosPerRequest, f.CPUCores, f.MemoryPeakBytes = "process", 400, 0.2, 50<<20
				f.AllocsPerRequest, f.BytesPerRequest, f.GCCyclesPerRequest = f64(10), f64(1000), f64(302.0/5000)
			}),
		},
		{
			name: "MemStats at only one end: none",
			readings: func() readings {
				c := withMemStats(tenSeconds())
				c.halves[1].memStatsEnd = nil
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
				for i := range c.halves {
					c.halves[i].end.At = c.halves[i].start.At
				}
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
	if n := reflect.TypeFor[report.Figures]().NumField(); n != 25 {
		diff += fmt.Sprintf("report.Figures has %d fields; diffFigures compares 25\n", n)
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
	opt("GoroutinesGrowthFirstHalfPer1k", got.GoroutinesGrowthFirstHalfPer1k, want.GoroutinesGrowthFirstHalfPer1k)
	opt("HeapGrowthFirstHalfBytesPer1k", got.HeapGrowthFirstHalfBytesPer1k, want.HeapGrowthFirstHalfBytesPer1k)
	num("SecondHalfRequests", float64(got.SecondHalfRequests), float64(want.SecondHalfRequests))
	num("SecondHalfNewConnections", float64(got.SecondHalfNewConnections), float64(want.SecondHalfNewConnections))
	return diff
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
