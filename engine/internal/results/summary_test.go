package results

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func ptr(v float64) *float64 { return &v }

// withMemStats is a run's figures from a service that serves MemStats.
func withMemStats(cpu, allocs float64) report.Figures {
	return report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: cpu, AllocsPerRequest: ptr(allocs), BytesPerRequest: ptr(allocs * 100), GCCyclesPerRequest: ptr(allocs / 1e4)}
}

func run(side string, valid bool, f report.Figures) report.Run {
	return report.Run{Side: side, Valid: valid, Figures: f}
}

func TestMedians(t *testing.T) {
	type want struct {
		base, head, delta  float64
		baseRuns, headRuns int
	}
	tests := []struct {
		name   string
		runs   []report.Run
		want   map[string]want
		absent []string // figures that must have no median at all
	}{
		{
			name: "odd counts",
			runs: []report.Run{
				run("base", true, withMemStats(30, 10)), run("head", true, withMemStats(50, 12)),
				run("base", true, withMemStats(10, 30)), run("head", true, withMemStats(40, 11)),
				run("base", true, withMemStats(20, 20)), run("head", true, withMemStats(60, 13)),
			},
			want: map[string]want{
				"cpu":    {20, 50, 1.5, 3, 3},
				"allocs": {20, 12, -0.4, 3, 3},
				"bytes":  {2000, 1200, -0.4, 3, 3},
			},
		},
		{
			name: "even counts average the middle two",
			runs: []report.Run{
				run("base", true, withMemStats(4, 1)), run("base", true, withMemStats(1, 1)),
				run("base", true, withMemStats(3, 1)), run("base", true, withMemStats(2, 1)),
				run("head", true, withMemStats(5, 1)), run("head", true, withMemStats(6, 1)),
			},
			want: map[string]want{"cpu": {2.5, 5.5, 1.2, 4, 2}},
		},
		{
			name: "invalid runs ignored",
			runs: []report.Run{
				run("base", true, withMemStats(10, 1)), run("base", false, withMemStats(1000, 1000)),
				run("head", false, withMemStats(0.001, 0.001)), run("head", true, withMemStats(11, 1)),
			},
			want: map[string]want{"cpu": {10, 11, 0.1, 1, 1}, "allocs": {1, 1, 0, 1, 1}},
		},
		{
			name: "no MemStats: no allocation figures",
			runs: []report.Run{
				run("base", true, report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 10, MemoryPeakBytes: 64 << 20}),
				run("head", true, report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 10, MemoryPeakBytes: 96 << 20}),
			},
			want:   map[string]want{"cpu": {10, 10, 0, 1, 1}, "memory_peak": {64, 96, 0.5, 1, 1}},
			absent: []string{"allocs", "bytes", "gc", "goroutines", "heap"},
		},
		{
			name: "MemStats on one side only: no delta",
			runs: []report.Run{
				run("base", true, withMemStats(10, 5)),
				run("head", true, report.Figures{CPUSource: "cgroup", CPUMicrosPerRequest: 10}),
			},
			want: map[string]want{"allocs": {5, 0, 0, 1, 0}},
		},
		{
			name: "zero base: no relative delta",
			runs: []report.Run{
				run("base", true, report.Figures{Throughput: 0}),
				run("head", true, report.Figures{Throughput: 500}),
			},
			want: map[string]want{"throughput": {0, 500, 0, 1, 1}},
		},
		{
			// Absolute metrics (the error rate, what a leak retains) are
			// near 0 or negative: their delta is head − base.
			name: "absolute metrics: delta is the difference",
			runs: []report.Run{
				run("base", true, report.Figures{ErrorRate: 0, GoroutinesRetainedPer1k: ptr(-0.2), HeapRetainedBytesPer1k: ptr(512)}),
				run("head", true, report.Figures{ErrorRate: 0.02, GoroutinesRetainedPer1k: ptr(2.8), HeapRetainedBytesPer1k: ptr(49664)}),
			},
			want: map[string]want{"errors": {0, 0.02, 0.02, 1, 1}, "goroutines": {-0.2, 2.8, 3, 1, 1}, "heap": {512, 49664, 49152, 1, 1}},
		},
		{
			name: "a run without a peak reading has no memory peak",
			runs: []report.Run{
				run("base", true, report.Figures{MemoryPeakBytes: 64 << 20}),
				run("head", true, report.Figures{}),
			},
			want: map[string]want{"memory_peak": {64, 0, 0, 1, 0}},
		},
		{
			name:   "no valid runs",
			runs:   []report.Run{run("base", false, withMemStats(1, 1)), run("head", false, withMemStats(1, 1))},
			absent: []string{"cpu", "allocs", "latency_p99", "memory_peak"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]report.Median{}
			for _, m := range Medians(tt.runs) {
				got[m.Name] = m
			}
			for name, w := range tt.want {
				m, ok := got[name]
				if !ok {
					t.Errorf("%s: no median", name)
					continue
				}
				if !near(m.Base, w.base) || !near(m.Head, w.head) || !near(m.Delta, w.delta) || m.BaseRuns != w.baseRuns || m.HeadRuns != w.headRuns {
					t.Errorf("%s: base %g head %g delta %g over %d/%d runs; want %g %g %g over %d/%d",
						name, m.Base, m.Head, m.Delta, m.BaseRuns, m.HeadRuns, w.base, w.head, w.delta, w.baseRuns, w.headRuns)
				}
			}
			for _, name := range tt.absent {
				if m, ok := got[name]; ok {
					t.Errorf("%s: median %+v, want none", name, m)
				}
			}
		})
	}
}

func TestMediansOrderAndUnits(t *testing.T) {
	f := withMemStats(1, 1)
	f.MemoryPeakBytes, f.GoroutinesRetainedPer1k, f.HeapRetainedBytesPer1k = 32<<20, ptr(0), ptr(0)
	ms := Medians([]report.Run{run("base", true, f), run("head", true, f)})
	var got []string
	for _, m := range ms {
		got = append(got, m.Name+" "+m.Unit)
	}
	want := []string{"cpu µs/req", "allocs allocs/req", "bytes B/req", "errors ratio", "goroutines goroutines/1k req", "heap B/1k req",
		"gc GC/req", "latency_p50 ms", "latency_p90 ms", "latency_p99 ms", "latency_max ms", "throughput req/s", "throttled ratio", "memory_peak MiB"}
	if len(got) != len(want) {
		t.Fatalf("medians %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("median %d is %q, want %q", i, got[i], want[i])
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}
