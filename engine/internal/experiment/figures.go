package experiment

import (
	"fmt"
	"sort"
	"strings"
	"time"

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

// invalidReasons applies the validity rules (docs/report-schema.md, "When a
// run is invalid"): a run that fails
// any of them is reported with the reasons and never compared.
func invalidReasons(cfg *config.Config, r report.Run, crashed bool) []string {
	var reasons []string
	v := cfg.Validity
	f := r.Figures
	// A dead service explains every other symptom (no load served, no
	// counters), so its reason stands alone.
	switch {
	case r.Exit.OOMKilled:
		return []string{fmt.Sprintf("OOM-killed (memory limit %s)", cfg.Resources.Memory)}
	case crashed:
		return []string{"crashed during the run: " + exitText(r)}
	}
	if min := float64(v.MinRate) * cfg.Load.Rate; f.AchievedRate < min {
		reasons = append(reasons, fmt.Sprintf("achieved rate %.1f/s is below %s of the target %g/s", f.AchievedRate, v.MinRate, cfg.Load.Rate))
	}
	if f.ErrorRate > float64(v.MaxErrors) {
		reasons = append(reasons, fmt.Sprintf("error rate %.2f%% is above the allowed %s (%s)", 100*f.ErrorRate, v.MaxErrors, errorSummary(r.Load)))
	}
	if f.GeneratorCPURatio > float64(v.MaxGeneratorCPU) {
		reasons = append(reasons, fmt.Sprintf("load generator saturated: it used %.0f%% of its CPUs (limit %s)", 100*f.GeneratorCPURatio, v.MaxGeneratorCPU))
	} else if lag := r.Load.PacerLagP99; lag > maxPacerLag {
		reasons = append(reasons, fmt.Sprintf("load generator saturated: requests left up to %v behind schedule (p99)", lag.Round(1e5)))
	}
	for _, p := range r.Profiles {
		if p.Error == "" && isWindowed(p.Name) && p.Finished.Before(r.Counters.End.At) {
			reasons = append(reasons, fmt.Sprintf("the %s profile ended before the window's counters were read, so its own work was counted; the service answered too slowly after the window", p.Name))
			break
		}
	}
	if v.MinCPUSamples > 0 {
		for _, p := range r.Profiles {
			if p.Name == "cpu" && p.Error == "" && p.Samples < int64(v.MinCPUSamples) {
				reasons = append(reasons, fmt.Sprintf("too few CPU samples: %d in the profile, %d needed; lengthen load.duration or raise load.rate", p.Samples, v.MinCPUSamples))
			}
		}
	}
	return reasons
}

// maxPacerLag is how late (p99) requests may leave versus the constant
// schedule before the load generator, not the service, shaped the load.
const maxPacerLag = 50 * time.Millisecond

func exitText(r report.Run) string {
	if r.Exit.Signal != "" {
		return "signal " + r.Exit.Signal
	}
	return fmt.Sprintf("exit code %d", r.Exit.Code)
}

func errorSummary(l report.Load) string {
	var parts []string
	for code, n := range l.StatusCodes {
		if code < "200" || code >= "400" {
			parts = append(parts, fmt.Sprintf("status %s ×%d", code, n))
		}
	}
	sort.Strings(parts)
	if len(l.Errors) > 0 {
		e := l.Errors[0]
		if len(e) > 120 {
			e = e[:120] + "…"
		}
		parts = append(parts, "e.g. "+e)
	}
	return strings.Join(parts, ", ")
}

func isWindowed(profile string) bool {
	switch profile {
	case "cpu", "allocs", "mutex", "block":
		return true
	}
	return false
}
