package experiment

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// duetRuns are the two runs of one healthy round: 1500 requests each,
// 0.1 cores each on a shared CPU.
func duetRuns() []report.Run {
	side := func(name string) report.Run {
		return report.Run{Side: name, Valid: true, Duet: &report.Duet{},
			Load: report.Load{Requests: 1500}, Figures: report.Figures{Requests: 1500, CPUCores: 0.1}}
	}
	return []report.Run{side(Base), side(Head)}
}

func TestJudgeDuet(t *testing.T) {
	tests := []struct {
		name       string
		edit       func(runs []report.Run)
		cpus       int
		base, head []string // reasons each side ends with (prefixes)
	}{
		{name: "healthy round", cpus: 1},
		{
			name: "an invalid side invalidates its partner, which keeps its own figures",
			edit: func(runs []report.Run) {
				runs[1].Valid, runs[1].InvalidReasons = false, []string{"OOM-killed (memory limit 8Mi)"}
			},
			cpus: 1,
			base: []string{"the head side of this round is invalid: OOM-killed"},
			head: []string{"OOM-killed"},
		},
		{
			name: "both invalid keep their own reasons",
			edit: func(runs []report.Run) {
				runs[0].Valid, runs[0].InvalidReasons = false, []string{"crashed during the run: signal SIGSEGV"}
				runs[1].Valid, runs[1].InvalidReasons = false, []string{"achieved rate 200/s"}
			},
			cpus: 1,
			base: []string{"crashed during the run"},
			head: []string{"achieved rate"},
		},
		{
			name: "shared CPUs too busy: both sides, with what to do",
			edit: func(runs []report.Run) { runs[0].Figures.CPUCores, runs[1].Figures.CPUCores = 0.4, 0.41 },
			cpus: 1,
			base: []string{"the shared CPUs were too busy for a fair duet: base and head together used 0.81 of 1 cores (81%, limit 75%); lower load.rate"},
			head: []string{"the shared CPUs were too busy"},
		},
		{
			name: "two shared CPUs have room for the same load",
			edit: func(runs []report.Run) { runs[0].Figures.CPUCores, runs[1].Figures.CPUCores = 0.4, 0.41 },
			cpus: 2,
		},
		{
			name: "an attack cut short on one side breaks the balance",
			edit: func(runs []report.Run) { runs[1].Load.Requests = 1400 },
			cpus: 1,
			base: []string{"the duet's balance was broken: base was sent 1500 requests and head 1400"},
			head: []string{"the duet's balance was broken"},
		},
		{
			name: "a cycle's worth of difference is the attack's end, not a broken balance",
			edit: func(runs []report.Run) { runs[1].Load.Requests = 1496 },
			cpus: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := duetRuns()
			if tt.edit != nil {
				tt.edit(runs)
			}
			judgeDuet(config.Default(), runs, tt.cpus)
			for i, want := range [][]string{tt.base, tt.head} {
				r := runs[i]
				if r.Valid != (len(want) == 0) || len(r.InvalidReasons) != len(want) {
					t.Fatalf("%s: valid %v, reasons %q; want %q", r.Side, r.Valid, r.InvalidReasons, want)
				}
				for j, prefix := range want {
					if !strings.HasPrefix(r.InvalidReasons[j], prefix) {
						t.Errorf("%s reason %d = %q, want it to start with %q", r.Side, j, r.InvalidReasons[j], prefix)
					}
				}
			}
			if busy := runs[0].Duet.SharedCPUBusy; busy != runs[1].Duet.SharedCPUBusy || busy <= 0 {
				t.Errorf("shared CPU busy %v and %v, want the same positive share on both", busy, runs[1].Duet.SharedCPUBusy)
			}
		})
	}
}

// The sides never see each other's reasons twice, whatever the order.
func TestJudgeDuetReasonsAreNotRepeated(t *testing.T) {
	runs := duetRuns()
	runs[0].Figures.CPUCores, runs[1].Figures.CPUCores = 0.5, 0.5
	runs[1].Load.Requests = 100
	judgeDuet(config.Default(), runs, 1)
	for _, r := range runs {
		seen := slices.Clone(r.InvalidReasons)
		slices.Sort(seen)
		if len(slices.Compact(seen)) != len(r.InvalidReasons) {
			t.Errorf("%s repeats a reason: %q", r.Side, r.InvalidReasons)
		}
	}
}
