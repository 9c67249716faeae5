package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// A regression on failures alone has no threshold to raise and no profile
// to start from: the next step is the failed runs and their output.
func TestNextStepsOfAFailuresRegression(t *testing.T) {
	failures := report.Metric{Name: "failures", Unit: "ratio", Scale: "absolute", Gates: true, Outcome: "regression", Head: 1}
	cpu := report.Metric{Name: "cpu", Unit: "µs/req", Scale: "relative", Gates: true, Outcome: "regression", Delta: 0.1, Threshold: 0.015}
	tests := []struct {
		name    string
		metrics []report.Metric
		want    []string
		notWant string
	}{
		{"failures alone", []report.Metric{failures},
			[]string{"fix what made head's service fail", "stderr.log", "adds the label `perfgate: accept` after the latest push"}, "raise"},
		{"failures and CPU", []report.Metric{failures, cpu},
			[]string{"fix what made head's service fail", "raise `gate.cpu`"}, "the threshold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &report.Report{Verdict: report.Regression, Metrics: tt.metrics}
			got := nextSteps(rep, Links{AcceptLabel: "perfgate: accept"})
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("next steps %q\nwant %q in them", got, want)
				}
			}
			if strings.Contains(got, tt.notWant) {
				t.Errorf("next steps %q\nmust not say %q", got, tt.notWant)
			}
		})
	}
}

// "Starting from the functions below" is true only when the comment shows
// a functions table: the endpoint run (a route that waits, whose CPU cost
// no function outside the runtime carries) has none, and its comment must
// point at what it does show.
func TestFixStartsWhereTheCommentPoints(t *testing.T) {
	for _, scenario := range []string{"regression", "endpoint"} {
		t.Run(scenario, func(t *testing.T) {
			rep := realReport(t, scenario)
			steps := nextSteps(rep, Links{})
			table := functionsSection(rep, Links{}) != ""
			if says := strings.Contains(steps, "the functions below"); says != table {
				t.Errorf("next steps %q point at the functions below: %v; the comment shows a functions table: %v", steps, says, table)
			}
			if !table && endpointsLine(rep) != "" && !strings.Contains(steps, "the request lines that regressed") {
				t.Errorf("next steps %q do not point at the request lines that regressed, which the comment shows", steps)
			}
		})
	}
	noProfiles := realReport(t, "endpoint")
	for i := range noProfiles.Runs {
		noProfiles.Runs[i].Profiles = nil
	}
	if steps := nextSteps(noProfiles, Links{}); !strings.Contains(steps, "no profiles were captured") {
		t.Errorf("next steps %q of a gate without profiles do not say so", steps)
	}
}
