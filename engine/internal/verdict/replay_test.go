package verdict

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
)

var (
	replay = flag.String("replay", "", "a glob of recorded gates' report.json files to decide again under today's rules, look by look (docs/benchmarks.md)")
	// replayQuietHeap asks what the heap row would do under the rule the
	// goroutines row has: a half in which the load opened connections
	// does not count (docs/benchmarks.md, "The heap row and halves that
	// opened connections").
	replayQuietHeap = flag.Bool("replay-quiet-heap", false, "with -replay: drop the retained heap of halves in which the load opened connections")
)

// TestReplayRecordedGates decides recorded gates again under today's
// statistics: the rounds they measured, in order, stopping at the first
// look that decides, as the experiment would have. It says what a change
// to the rules does to real gates without measuring them again:
//
//	go test ./internal/verdict -run TestReplayRecordedGates -replay 'results/power-kind-par/*/report.json' -v
//
// A report written before a figure existed gets it from its counters
// (SecondHalfNewConnections from the serving connections halfway and at
// the end). A replay cannot add rounds: a gate that would now need more
// than were measured is decided at the last one and marked so.
func TestReplayRecordedGates(t *testing.T) {
	if *replay == "" {
		t.Skip("run with -replay 'results/*/report.json'")
	}
	paths, err := filepath.Glob(*replay)
	if err != nil || len(paths) == 0 {
		t.Fatalf("-replay %q matches no file (%v)", *replay, err)
	}
	fmt.Printf("| gate | recorded | rounds | goroutines | replayed | rounds | goroutines | held at earlier looks by |\n|---|---|---|---|---|---|---|---|\n")
	var opened, quiet halves
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := render.ReadReport(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cfg := config.Config(rep.Config)
		runs := withFiguresFromCounters(rep.Runs)
		if *replayQuietHeap {
			runs = withoutHeapOfHalvesThatOpened(runs)
		}
		for _, r := range runs {
			if r.Compared() && r.Figures.GoroutinesRetainedPer1k != nil {
				if r.Figures.SecondHalfNewConnections > 0 {
					opened.add(r.Figures)
				} else {
					quiet.add(r.Figures)
				}
			}
		}
		verdict, rounds, goroutines, held, cut := replayGate(runs, &cfg)
		if cut {
			rounds += ", all measured"
		}
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %s | %s |\n", filepath.Base(filepath.Dir(path)), rep.Verdict, len(ValidPairs(rep.Runs)),
			outcomeOf(rep.Metrics, "goroutines"), verdict, rounds, goroutines, held)
	}
	fmt.Printf("\nsecond halves that opened connections: %s\nsecond halves that opened none: %s\n", opened, quiet)
}

// halves tallies valid runs' second halves: how many, how many of them
// the goroutine count grew in, and by how much in all.
type halves struct{ runs, grew, goroutines int }

func (h *halves) add(f report.Figures) {
	h.runs++
	if g := int(math.Round(*f.GoroutinesRetainedPer1k * float64(f.SecondHalfRequests) / 1000)); g > 0 {
		h.grew++
		h.goroutines += g
	}
}

func (h halves) String() string {
	return fmt.Sprintf("%d runs, %d of them grew, by %d goroutines in all", h.runs, h.grew, h.goroutines)
}

// replayGate adds the recorded rounds in pair order and stops where the
// experiment would: at the first round count where MayStop holds, or at
// the plan's maximum. held names, at each look passed without stopping,
// the gating metrics still undecided there: what made the gate longer.
// cut says the recorded rounds ran out first.
func replayGate(runs []report.Run, cfg *config.Config) (verdict, rounds, goroutines, held string, cut bool) {
	byPair := map[int][]report.Run{}
	var pairs []int
	for _, r := range runs {
		if _, ok := byPair[r.Pair]; !ok {
			pairs = append(pairs, r.Pair)
		}
		byPair[r.Pair] = append(byPair[r.Pair], r)
	}
	sort.Ints(pairs)
	var sofar []report.Run
	stopped, lastLook := false, 0
	for _, p := range pairs {
		sofar = append(sofar, byPair[p]...)
		n := len(ValidPairs(sofar))
		if n >= cfg.MaxPairs || (n > 0 && MayStop(sofar, cfg)) {
			stopped = true
			break
		}
		if n > 0 && n != lastLook && Plan(cfg).IsLook(n) {
			lastLook = n
			held += fmt.Sprintf("%d: %s; ", n, undecided(CompareAtLook(sofar, cfg.Gate, Plan(cfg))))
		}
	}
	metrics := CompareAtLook(sofar, cfg.Gate, Plan(cfg))
	verdict, _, _ = Decide(metrics)
	return verdict, fmt.Sprint(len(ValidPairs(sofar))), outcomeOf(metrics, "goroutines"), strings.TrimSuffix(held, "; "), !stopped
}

// undecided names the gating metrics whose outcome is inconclusive.
func undecided(metrics []report.Metric) string {
	var names []string
	for _, m := range metrics {
		if m.Gates && m.Outcome == "inconclusive" {
			names = append(names, fmt.Sprintf("%s %+.4g [%+.4g, %+.4g]", m.Name, m.Delta, m.CI[0], m.CI[1]))
		}
	}
	return strings.Join(names, ", ")
}

// withFiguresFromCounters fills the figures a report from before them
// lacks but its counters hold.
func withFiguresFromCounters(runs []report.Run) []report.Run {
	out := append([]report.Run(nil), runs...)
	for i := range out {
		c, f := out[i].Counters, &out[i].Figures
		if c.Halfway == nil || c.Halfway.Retained == nil || c.RetainedEnd == nil {
			continue
		}
		if half, end := c.Halfway.Retained.Connections, c.RetainedEnd.Connections; end > half && f.SecondHalfNewConnections == 0 {
			f.SecondHalfNewConnections = end - half
		}
	}
	return out
}

// withoutHeapOfHalvesThatOpened drops the retained heap of every run
// whose second half opened connections.
func withoutHeapOfHalvesThatOpened(runs []report.Run) []report.Run {
	for i := range runs {
		if runs[i].Figures.SecondHalfNewConnections > 0 {
			runs[i].Figures.HeapRetainedBytesPer1k = nil
		}
	}
	return runs
}

func outcomeOf(metrics []report.Metric, name string) string {
	for _, m := range metrics {
		if m.Name == name {
			return fmt.Sprintf("%s %+.2f [%+.2f, %+.2f]", m.Outcome, m.Delta, m.CI[0], m.CI[1])
		}
	}
	return "absent"
}
