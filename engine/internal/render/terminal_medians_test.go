package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
)

// TestPrintMedians compares with testdata/comparison.txt (go test -run
// PrintMedians -update rewrites it after a deliberate change of the
// format): every catalog metric's medians over the valid runs, in its
// own display format, aligned whatever the units' lengths.
func TestPrintMedians(t *testing.T) {
	fig := func(cpu, allocs, p99, rps, errs float64, peak int64, goroutines, heap float64) report.Figures {
		return report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: cpu, AllocsPerRequest: ptr(allocs), BytesPerRequest: ptr(allocs * 100), GCCyclesPerRequest: ptr(allocs / 1e4),
			GoroutinesRetainedPer1k: &goroutines, HeapRetainedBytesPer1k: &heap,
			LatencyP50Ms: p99 / 4, LatencyP90Ms: p99 / 2, LatencyP99Ms: p99, LatencyMaxMs: p99 * 3,
			Throughput: rps, ErrorRate: errs, MemoryPeakBytes: peak}
	}
	run := func(side string, valid bool, f report.Figures) report.Run {
		return report.Run{Side: side, Valid: valid, Figures: f}
	}
	runs := []report.Run{
		run("base", true, fig(41.3, 25, 1.92, 499.8, 0, 31<<20, -0.1, -820)),
		run("base", true, fig(40.1, 25, 2.05, 500.1, 0.0004, 30<<20, 0.2, 1460)),
		run("base", false, fig(400, 250, 90, 120, 0.3, 200<<20, 9, 1e6)),
		run("head", true, fig(46.2, 31, 2.41, 500, 0, 35<<20, 2.1, 50200)),
		run("head", true, fig(45.7, 31, 2.2, 499.9, 0, 36<<20, 1.9, 48900)),
	}
	var b strings.Builder
	printMedians(&b, results.Medians(runs))
	// A side without valid runs prints "~" rather than a made-up delta.
	printMedians(&b, []report.Median{{Name: "cpu", Unit: "µs/req", Base: 12.5, BaseRuns: 3}})
	golden(t, "comparison.txt", b.String())
}
