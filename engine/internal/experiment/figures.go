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
	elapsed := rd.end.At.Sub(rd.start.At).Seconds()
	cpuNanos := float64(rd.end.ProcessCPUNano - rd.start.ProcessCPUNano)
	f.CPUSource = "process"
	if rd.start.Cgroup != nil && rd.end.Cgroup != nil {
		start, end := rd.start.Cgroup, rd.end.Cgroup
		cpuNanos = float64(end.CPUUsageNanos - start.CPUUsageNanos)
		f.CPUSource = "cgroup"
		if periods := end.Periods - start.Periods; periods > 0 {
			f.ThrottledRatio = float64(end.ThrottledPeriods-start.ThrottledPeriods) / float64(periods)
		}
		f.ThrottledMs = float64(end.ThrottledNanos-start.ThrottledNanos) / 1e6
		f.MemoryPeakBytes = end.MemoryPeakBytes
	}
	if f.MemoryPeakBytes == 0 {
		f.MemoryPeakBytes = rd.end.MaxRSSBytes
	}
	f.CPUMicrosPerRequest = perReq(cpuNanos / 1e3)
	if elapsed > 0 {
		f.CPUCores = cpuNanos / 1e9 / elapsed
	}
	if a, b := rd.memStatsStart, rd.memStatsEnd; a != nil && b != nil {
		allocs := perReq(float64(b.Mallocs - a.Mallocs))
		bytes := perReq(float64(b.TotalAlloc - a.TotalAlloc))
		gc := perReq(float64(b.NumGC - a.NumGC))
		f.AllocsPerRequest, f.BytesPerRequest, f.GCCyclesPerRequest = &allocs, &bytes, &gc
		if pauseNs, ok := capture.PauseDuring(*a, *b); ok {
			pause := perReq(float64(pauseNs) / 1e3)
			f.GCPauseMicrosPerReq = &pause
		}
	}
	if a, b := rd.retainedStart, rd.retainedEnd; a != nil && b != nil {
		goroutines := 1000 * perReq(float64(b.Goroutines)-float64(a.Goroutines))
		heap := 1000 * perReq(float64(b.HeapLiveBytes)-float64(a.HeapLiveBytes))
		f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = &goroutines, &heap
	}
	return f
}
