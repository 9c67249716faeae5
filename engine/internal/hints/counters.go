package hints

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// compared is the report's paired comparison of a catalog metric, or nil.
func compared(rep *report.Report, m *metric.Metric) *report.Metric {
	for i := range rep.Metrics {
		if rep.Metrics[i].Name == m.Name {
			return &rep.Metrics[i]
		}
	}
	return nil
}

// median is the report's summary median of a catalog metric, or nil.
func median(rep *report.Report, m *metric.Metric) *report.Median {
	for i := range rep.Summary {
		if rep.Summary[i].Name == m.Name {
			return &rep.Summary[i]
		}
	}
	return nil
}

// gcPressure fires when GC cycles per request rose by a fifth or more
// along with bytes allocated per request (by 5% or more), so the extra
// cycles come from new allocation rather than, say, a smaller heap. It
// reads the medians, not the gate's outcome: the evidence is the same
// whether or not this run had the pairs to call bytes/req significant.
func gcPressure(rep *report.Report) []report.Hint {
	gc, bytes := median(rep, metric.GC), median(rep, metric.Bytes)
	if gc == nil || bytes == nil || gc.BaseRuns == 0 || gc.HeadRuns == 0 || gc.Delta < 0.2 || bytes.Delta < 0.05 {
		return nil
	}
	return []report.Hint{{
		Rule:     "gc-pressure",
		Message:  fmt.Sprintf("GC cycles per request rose %+.0f%% with %+.0f%% more bytes allocated per request: the new allocations make the collector run more often, which costs CPU and latency; the allocs profile shows where they come from", 100*gc.Delta, 100*bytes.Delta),
		Evidence: fmt.Sprintf("medians over valid runs: gc/req %.4g → %.4g; bytes/req %.4g → %.4g", gc.Base, gc.Head, bytes.Base, bytes.Head),
	}}
}

// throttling fires when a side spent a tenth or more of its CFS periods
// throttled: the CPU limit, not the code, shapes its latency. It reads
// every measured run, valid or not, because throttling is often why runs
// were invalid (rate not reached, timeouts) and that is when it matters.
func throttling(rep *report.Report) []report.Hint {
	base, head := throttledRatios(rep.Runs, metric.Base), throttledRatios(rep.Runs, metric.Head)
	if len(base)+len(head) == 0 {
		return nil
	}
	b, h := stats.Median(base), stats.Median(head)
	if b < 0.1 && h < 0.1 {
		return nil
	}
	if rep.Recording() { // one tree measured, as side head
		return []report.Hint{{
			Rule:     "cpu-throttling",
			Message:  fmt.Sprintf("the service was CPU-throttled in %.0f%% of its scheduling periods under a %s CPU limit: latency there is set by the quota; raise resources.cpu or lower load.rate to measure the code", 100*h, rep.Config.Resources.CPU),
			Evidence: fmt.Sprintf("cgroup cpu.stat nr_throttled/nr_periods, median over %d runs: %.3f", len(head), h),
		}}
	}
	return []report.Hint{{
		Rule:     "cpu-throttling",
		Message:  fmt.Sprintf("the service was CPU-throttled in %.0f%% (base) and %.0f%% (head) of its scheduling periods under a %s CPU limit: latency there is set by the quota; raise resources.cpu or lower load.rate to measure the code", 100*b, 100*h, rep.Config.Resources.CPU),
		Evidence: fmt.Sprintf("cgroup cpu.stat nr_throttled/nr_periods, median over %d base and %d head runs: %.3f → %.3f", len(base), len(head), b, h),
	}}
}

// throttledRatios are a side's throttled-period ratios over the runs that
// were measured (sent requests), valid or not.
func throttledRatios(runs []report.Run, side metric.Side) []float64 {
	var out []float64
	for _, r := range runs {
		if metric.SideOf(r) != side || r.Figures.Requests == 0 {
			continue
		}
		if v, ok := metric.Throttled.Value(r.Figures); ok {
			out = append(out, v)
		}
	}
	return out
}

// gomaxprocsAboveLimit fires when the service runs more Ps than its quota
// has cores, which makes it burn its quota in bursts and stall.
func gomaxprocsAboveLimit(rep *report.Report) []report.Hint {
	e := rep.Environment
	limit := e.Limits.CPUMillicores
	if limit == 0 || int64(e.GOMAXPROCS)*1000 <= limit+999 {
		return nil
	}
	return []report.Hint{{
		Rule:     "gomaxprocs-above-limit",
		Message:  fmt.Sprintf("GOMAXPROCS is %d under a CPU limit of %dm: the runtime schedules more threads than the quota allows and is throttled in bursts; let the runtime match the limit (Go 1.25+) or set GOMAXPROCS to the limit", e.GOMAXPROCS, limit),
		Evidence: fmt.Sprintf("environment: gomaxprocs %d (%s), cgroup limit %dm", e.GOMAXPROCS, e.GOMAXPROCSSource, limit),
	}}
}

// oomKilled fires when any run's service was killed for memory.
func oomKilled(rep *report.Report) []report.Hint {
	sides := map[metric.Side]int{}
	var peak int64
	for _, r := range rep.Runs {
		if r.Exit.OOMKilled {
			sides[metric.SideOf(r)]++
			peak = max(peak, r.Figures.MemoryPeakBytes)
		}
	}
	if len(sides) == 0 {
		return nil
	}
	where := fmt.Sprintf("base %d, head %d runs", sides[metric.Base], sides[metric.Head])
	if rep.Recording() {
		where = fmt.Sprintf("%d runs", sides[metric.Head])
	}
	return []report.Hint{{
		Rule:     "oom-killed",
		Message:  fmt.Sprintf("the service was OOM-killed under the %s memory limit (%s): raise resources.memory, or find what holds memory in the heap profile", rep.Config.Resources.Memory, where),
		Evidence: fmt.Sprintf("cgroup oom_kill events; highest memory peak seen %d bytes", peak),
	}}
}
