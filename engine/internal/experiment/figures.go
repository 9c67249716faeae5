package experiment

import (
	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

type configRequest = config.Request

// figures turns a run's raw readings into per-request numbers.
func figures(crashed bool, rd readings, generatorCPUs int) report.Figures {
	l := rd.load
	f := report.Figures{
		Requests:     l.Requests,
		LatencyP50Ms: ms(l.Latency.P50),
		LatencyP90Ms: ms(l.Latency.P90),
		LatencyP99Ms: ms(l.Latency.P99),
		LatencyMaxMs: ms(l.Latency.Max),
		Throughput:   l.Throughput,
		AchievedRate: l.AchievedRate,
		ErrorRate:    l.ErrorRate,
	}
	if generatorCPUs > 0 && l.GeneratorWallNanos > 0 {
		f.GeneratorCPURatio = float64(l.GeneratorCPUNanos) / float64(l.GeneratorWallNanos) / float64(generatorCPUs)
	}
	if crashed || l.Requests == 0 {
		return f
	}
	perReq := func(v float64) float64 { return v / float64(l.Requests) }
	var elapsed, cpu, periods, throttled, throttledNanos float64
	confined := true
	for _, h := range rd.halves {
		elapsed += h.end.At.Sub(h.start.At).Seconds()
		cpu += float64(h.end.ProcessCPUNano - h.start.ProcessCPUNano)
		if h.start.Cgroup == nil || h.end.Cgroup == nil {
			confined = false
			continue
		}
		start, end := h.start.Cgroup, h.end.Cgroup
		periods += float64(end.Periods - start.Periods)
		throttled += float64(end.ThrottledPeriods - start.ThrottledPeriods)
		throttledNanos += float64(end.ThrottledNanos - start.ThrottledNanos)
	}
	end := rd.halves[1].end
	f.CPUSource = "process"
	if confined {
		cpu = 0
		for _, h := range rd.halves {
			cpu += float64(h.end.Cgroup.CPUUsageNanos - h.start.Cgroup.CPUUsageNanos)
		}
		f.CPUSource = "cgroup"
		if periods > 0 {
			f.ThrottledRatio = throttled / periods
		}
		f.ThrottledMs = throttledNanos / 1e6
		f.MemoryPeakBytes = end.Cgroup.MemoryPeakBytes
	}
	if f.MemoryPeakBytes == 0 {
		f.MemoryPeakBytes = end.MaxRSSBytes
	}
	f.CPUMicrosPerRequest = perReq(cpu / 1e3)
	if elapsed > 0 {
		f.CPUCores = cpu / 1e9 / elapsed
	}
	memStats(&f, rd.halves, perReq)
	retained(&f, rd)
	return f
}

// memStats sets the allocation and GC figures from both halves' MemStats,
// when every one was read.
func memStats(f *report.Figures, halves [2]halfReadings, perReq func(float64) float64) {
	var mallocs, bytes, gcs, pauseNs float64
	paused := true
	for _, h := range halves {
		a, b := h.memStatsStart, h.memStatsEnd
		if a == nil || b == nil {
			return
		}
		mallocs += float64(b.Mallocs - a.Mallocs)
		bytes += float64(b.TotalAlloc - a.TotalAlloc)
		gcs += float64(b.NumGC - a.NumGC)
		ns, ok := capture.PauseDuring(*a, *b)
		paused = paused && ok
		pauseNs += float64(ns)
	}
	allocs, perReqBytes, gc := perReq(mallocs), perReq(bytes), perReq(gcs)
	f.AllocsPerRequest, f.BytesPerRequest, f.GCCyclesPerRequest = &allocs, &perReqBytes, &gc
	if paused {
		pause := perReq(pauseNs / 1e3)
		f.GCPauseMicrosPerReq = &pause
	}
}

// retained sets the growth of the goroutines and of the live heap per
// 1,000 requests in each half. The second half's is the gated figure: a
// leak keeps growing, while a cache or a pool that fills up grows in the
// first half only.
func retained(f *report.Figures, rd readings) {
	for h, half := range rd.halves {
		a, b := rd.retainedAt(h), rd.retainedAt(h+1)
		if a == nil || b == nil || half.load.Requests == 0 {
			continue
		}
		per1k := func(v float64) *float64 { x := 1000 * v / float64(half.load.Requests); return &x }
		goroutines := per1k(float64(b.Goroutines) - float64(a.Goroutines))
		heap := per1k(float64(b.HeapLiveBytes) - float64(a.HeapLiveBytes))
		if h == 0 {
			f.GoroutinesGrowthFirstHalfPer1k, f.HeapGrowthFirstHalfBytesPer1k = goroutines, heap
		} else {
			f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = goroutines, heap
			f.SecondHalfRequests = half.load.Requests
			if b.Connections > a.Connections {
				f.SecondHalfNewConnections = b.Connections - a.Connections
			}
		}
	}
}
