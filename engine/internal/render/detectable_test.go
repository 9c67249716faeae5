package render

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestCouldDetectShowsItsRange: "could detect" carries its range where the
// range shows at the precision printed, never below the threshold, and
// says so plainly when no change could be caught.
func TestCouldDetectShowsItsRange(t *testing.T) {
	cpu := func(d float64, r *[2]float64) report.Metric {
		return report.Metric{Name: "cpu", Unit: "µs/req", Scale: "relative", Threshold: 0.015, Gates: true, Pairs: 14, Detectable: &d, DetectableRange: r}
	}
	for _, tc := range []struct {
		m    report.Metric
		want string
	}{
		{cpu(0.0206, &[2]float64{0.0181, 0.0262}), "≥ 2.1% (1.8% to 2.6%)"},
		{cpu(0.0206, nil), "≥ 2.1%"},
		// Near the threshold the range is floored there like the figure.
		{cpu(0.016, &[2]float64{0.0149, 0.019}), "≥ 1.6% (1.5% to 1.9%)"},
		// On the threshold, with no noise to speak of: one figure.
		{cpu(0.015, &[2]float64{0.015, 0.015}), "≥ 1.5%"},
		{report.Metric{Name: "cpu", Unit: "µs/req", Scale: "relative", Threshold: 0.015, Pairs: 3}, "nothing: 3 pairs are too few"},
	} {
		if got := detectable(tc.m); got != tc.want {
			t.Errorf("could detect %q, want %q", got, tc.want)
		}
	}
}
