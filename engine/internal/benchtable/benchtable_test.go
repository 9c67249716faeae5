package benchtable

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func runsWith(side string, allocs []float64, valid bool) []report.Run {
	var runs []report.Run
	for i, a := range allocs {
		a := a
		runs = append(runs, report.Run{Side: side, Pair: i + 1, Valid: valid, Figures: report.Figures{
			CPUSource: "cgroup", CPUMicrosPerRequest: 100, AllocsPerRequest: &a, LatencyP50Ms: 1, Throughput: 500,
			GoroutinesRetainedPer1k: &a, HeapRetainedBytesPer1k: &a,
		}})
	}
	return runs
}

func TestRowsLikeBenchstat(t *testing.T) {
	runs := append(runsWith("base", []float64{89.1, 89.4, 89.2, 89.5, 89.3, 89.6}, true),
		runsWith("head", []float64{122.4, 122.6, 122.5, 122.7, 122.3, 122.8}, true)...)
	// Invalid runs never count.
	runs = append(runs, runsWith("head", []float64{1, 1, 1}, false)...)
	rows := Rows(runs)
	byName := map[string]report.BenchRow{}
	for _, r := range rows {
		byName[r.Metric] = r
	}
	allocs := byName["allocs/req"]
	if !strings.HasPrefix(allocs.Delta, "+37.") || allocs.P > 0.01 || allocs.Note != "p=0.002 n=6" {
		t.Errorf("allocs row %+v", allocs)
	}
	if cpu := byName["cpu-ns/req"]; cpu.Delta != "~" || len(cpu.Warnings) == 0 || cpu.Base != 100e3 {
		t.Errorf("identical CPU on both sides must be ~ with benchmath's warning, in the bench files' ns: %+v", cpu)
	}
	if p50 := byName["p50-ns"]; p50.Base != 1e6 {
		t.Errorf("latency rows must be in the bench files' unit (ns): %+v", p50)
	}
	if _, ok := byName["B/req"]; ok {
		t.Error("a figure no run has must not get a row")
	}
	for _, r := range rows {
		if strings.Contains(r.Metric, "goroutines") || strings.Contains(r.Metric, "1k") {
			t.Errorf("leak metrics are absolute; benchstat's relative deltas say nothing of them: %+v", r)
		}
	}
}
