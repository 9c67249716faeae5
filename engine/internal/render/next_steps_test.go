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
