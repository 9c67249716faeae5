package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// slopeRow is what the gates of one plant measured of the leak metrics'
// two halves (docs/benchmarks.md, "Leaks as a slope").
type slopeRow struct {
	gates    int
	outcomes map[string]int
	// firstHalf and secondHalf are each gate's median heap growth per
	// 1,000 requests over its valid gating runs, per side (0 base, 1
	// head).
	firstHalf, secondHalf [2][]float64
	// whole is the same over the whole window: what the heap metric was
	// before the window was measured in halves.
	whole [2][]float64
	// differences are every valid gating round's head − base heap growth
	// over the second half: their SD is the heap metric's noise per round.
	differences []float64
	// pauses are the rounds' halfway pauses in ms (the longer side's: a
	// duet reads both sides in the one pause), gating and profile rounds
	// apart.
	pauses, profilePauses []float64
}

// Slope is the Markdown table of the leak metrics' halves over the gates
// in dir (<plant>-<i>/report.json): per plant, the heap metric's outcomes,
// both halves' heap growth, the round-to-round SD of the gated half's
// difference, and how long the halfway pause took.
func Slope(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	rows := map[string]*slopeRow{}
	var plants []string
	for _, e := range entries {
		m := gateDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "report.json"))
		if err != nil {
			continue // a gate without a report measured nothing
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return "", fmt.Errorf("%s: %w", e.Name(), err)
		}
		row := rows[m[1]]
		if row == nil {
			row = &slopeRow{outcomes: map[string]int{}}
			rows[m[1]] = row
			plants = append(plants, m[1])
		}
		row.add(&rep)
	}
	sort.Strings(plants)
	var b strings.Builder
	b.WriteString("| plant | gates | heap outcome | first half, base → head | second half (gated), base → head | whole window (before the halves), base → head | SD of head − base per round | halfway pause, gating / profile rounds |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, p := range plants {
		r := rows[p]
		fmt.Fprintf(&b, "| %s | %d | %s | %s → %s | %s → %s | %s → %s | %s (%d rounds) | %.0f / %.0f ms |\n", p, r.gates, outcomes(r.outcomes),
			bytesPer1k(stats.Median(r.firstHalf[0])), bytesPer1k(stats.Median(r.firstHalf[1])),
			bytesPer1k(stats.Median(r.secondHalf[0])), bytesPer1k(stats.Median(r.secondHalf[1])),
			bytesPer1k(stats.Median(r.whole[0])), bytesPer1k(stats.Median(r.whole[1])),
			bytesPer1k(stats.SD(r.differences)), len(r.differences),
			stats.Median(r.pauses), stats.Median(r.profilePauses))
	}
	b.WriteString("\nGrowth of the live heap per 1,000 requests, medians over the gates of each gate's median over its valid gating rounds.\n")
	return b.String(), nil
}

// add reads one gate's report into the row.
func (r *slopeRow) add(rep *report.Report) {
	r.gates++
	outcome := "missing"
	for _, m := range rep.Metrics {
		if m.Name == metric.Heap.Name {
			outcome = m.Outcome
		}
	}
	r.outcomes[outcome]++
	var first, second, whole [2][]float64
	byRound := map[int][2]*report.Run{}
	pause := map[int]float64{}
	profileRound := map[int]bool{}
	for i := range rep.Runs {
		run := &rep.Runs[i]
		if h := run.Counters.Halfway; h != nil {
			pause[run.Pair] = max(pause[run.Pair], float64(h.Start.At.Sub(h.End.At).Milliseconds()))
			profileRound[run.Pair] = run.ProfileRound
		}
		if !run.Valid || run.ProfileRound {
			continue
		}
		side := 0
		if run.Side == "head" {
			side = 1
		}
		if v := run.Figures.HeapGrowthFirstHalfBytesPer1k; v != nil {
			first[side] = append(first[side], *v)
		}
		if v := run.Figures.HeapRetainedBytesPer1k; v != nil {
			second[side] = append(second[side], *v)
		}
		if a, b := run.Counters.RetainedStart, run.Counters.RetainedEnd; a != nil && b != nil && run.Figures.Requests > 0 {
			whole[side] = append(whole[side], 1000*(float64(b.HeapLiveBytes)-float64(a.HeapLiveBytes))/float64(run.Figures.Requests))
		}
		pair := byRound[run.Pair]
		pair[side] = run
		byRound[run.Pair] = pair
	}
	for s := range 2 {
		if len(first[s]) > 0 {
			r.firstHalf[s] = append(r.firstHalf[s], stats.Median(first[s]))
		}
		if len(second[s]) > 0 {
			r.secondHalf[s] = append(r.secondHalf[s], stats.Median(second[s]))
		}
		if len(whole[s]) > 0 {
			r.whole[s] = append(r.whole[s], stats.Median(whole[s]))
		}
	}
	for _, pair := range byRound {
		if pair[0] != nil && pair[1] != nil && pair[0].Figures.HeapRetainedBytesPer1k != nil && pair[1].Figures.HeapRetainedBytesPer1k != nil {
			r.differences = append(r.differences, *pair[1].Figures.HeapRetainedBytesPer1k-*pair[0].Figures.HeapRetainedBytesPer1k)
		}
	}
	for round, ms := range pause {
		if profileRound[round] {
			r.profilePauses = append(r.profilePauses, ms)
		} else {
			r.pauses = append(r.pauses, ms)
		}
	}
}

// outcomes is "regression 3, unchanged 1", most frequent first.
func outcomes(counts map[string]int) string {
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, counts[n])
	}
	return strings.Join(parts, ", ")
}

// bytesPer1k shows a heap growth per 1,000 requests as the heap metric
// does.
func bytesPer1k(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return metric.Heap.Format(v)
}
