package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestSlopeReadsBothHalvesPerPlant: two rounds of one gate, the heap's
// growth per half per side, the halfway pause, and a profile round whose
// figures stay out of the gated columns.
func TestSlopeReadsBothHalvesPerPlant(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	run := func(side string, pair int, profile bool, first, second float64, pause time.Duration) report.Run {
		r := report.Run{Side: side, Pair: pair, Valid: true, ProfileRound: profile}
		r.Figures.HeapGrowthFirstHalfBytesPer1k, r.Figures.HeapRetainedBytesPer1k = &first, &second
		r.Counters.Halfway = &report.Halfway{End: report.CountersAt{At: at}, Start: report.CountersAt{At: at.Add(pause)}}
		// 1,000 requests whose live heap grew by the two halves' growth
		// per 1,000 requests of each half (500 requests each): their mean.
		r.Figures.Requests = 1000
		r.Counters.RetainedStart = &report.Retained{HeapLiveBytes: 1 << 20}
		r.Counters.RetainedEnd = &report.Retained{HeapLiveBytes: 1<<20 + uint64((first+second)/2)}
		return r
	}
	rep := report.Report{
		Metrics: []report.Metric{{Name: "heap", Outcome: "unchanged"}},
		Runs: []report.Run{
			run("base", 1, false, 1000, 100, 200*time.Millisecond),
			run("head", 1, false, 500_000, 300, 210*time.Millisecond),
			run("base", 2, false, 3000, 200, 220*time.Millisecond),
			run("head", 2, false, 600_000, 600, 220*time.Millisecond),
			run("base", 3, true, 0, 9e9, 270*time.Millisecond),
			run("head", 3, true, 0, 9e9, 280*time.Millisecond),
		},
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bounded-cache-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(rep)
	if err := os.WriteFile(filepath.Join(dir, "bounded-cache-1", "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := Slope(dir)
	if err != nil {
		t.Fatal(err)
	}
	// First halves: medians 2000 and 550,000; second: 150 and 450;
	// head − base per round 200 and 400 (SD 141.4); pauses 210 and 220
	// (median 215), the profile round's 280; whole windows: medians of
	// (1000+100)/2, (3000+200)/2 and of (500000+300)/2, (600000+600)/2.
	for _, want := range []string{"| bounded-cache | 1 | unchanged 1 |", "1.953 KiB/1k req → 537.1 KiB/1k req", "150 B/1k req → 450 B/1k req",
		"1.05 KiB/1k req → 268.8 KiB/1k req", "141.4 B/1k req (2 rounds)", "215 / 280 ms"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
