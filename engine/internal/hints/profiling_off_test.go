package hints

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestServiceHintsSayHowToTurnProfilingOn(t *testing.T) {
	zero, five := int64(0), int64(5)
	runs := func(profiles ...report.Profile) []report.Run {
		return []report.Run{{Side: "base", Profiles: profiles}, {Side: "head", Profiles: profiles}}
	}
	for _, tc := range []struct {
		name string
		runs []report.Run
		want []string
	}{
		{"both off", runs(report.Profile{Name: "mutex", Rate: &zero}, report.Profile{Name: "block"}), []string{"mutex-profile-off", "block-profile-off"}},
		{"mutex on but uncontended", runs(report.Profile{Name: "mutex", Rate: &five}, report.Profile{Name: "block", Samples: 3}), nil},
		{"contention seen", runs(report.Profile{Name: "mutex", Samples: 12}), nil},
		{"not captured", runs(report.Profile{Name: "cpu", Samples: 300}), nil},
		{"capture failed", runs(report.Profile{Name: "block", Error: "GET /block: timeout"}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ServiceHints(&report.Report{Runs: tc.runs})
			if len(got) != len(tc.want) {
				t.Fatalf("hints %+v, want rules %v", got, tc.want)
			}
			for i, h := range got {
				if h.Rule != tc.want[i] {
					t.Errorf("hint %d is %s, want %s", i, h.Rule, tc.want[i])
				}
				if !strings.Contains(h.Message, "runtime.Set") || !strings.Contains(h.Evidence, "all 2 runs") {
					t.Errorf("hint %s: %q (%q) must name the call and the evidence", h.Rule, h.Message, h.Evidence)
				}
			}
		})
	}
}

// TestContentionHiddenAtOneCPU: at GOMAXPROCS 1 the report says that
// contention cannot show, and names the shape that would reveal it; at 2
// it says nothing.
func TestContentionHiddenAtOneCPU(t *testing.T) {
	rep := &report.Report{}
	rep.Environment.GOMAXPROCS, rep.Environment.GOMAXPROCSSource = 1, "set from the CPU limit"
	hs := ServiceHints(rep)
	if len(hs) != 1 || hs[0].Rule != "contention-hidden" || !strings.Contains(hs[0].Message, "contention") ||
		!strings.Contains(hs[0].Message, "resources.cpu: 2") || !strings.Contains(hs[0].Evidence, "GOMAXPROCS 1") {
		t.Errorf("GOMAXPROCS 1: %+v", hs)
	}
	rep.Environment.GOMAXPROCS = 2
	if hs := ServiceHints(rep); len(hs) != 0 {
		t.Errorf("GOMAXPROCS 2: %+v", hs)
	}
}
