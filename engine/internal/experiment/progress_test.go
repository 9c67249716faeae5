package experiment

import (
	"testing"
	"time"
)

func TestPaceSaysElapsedAndTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		name        string
		least, most int
		want        string
	}{
		{"a range while the gate may stop early", 2, 6, "  [20s elapsed, 20s to 1m0s left]"},
		{"one figure when the count is fixed", 3, 3, "  [20s elapsed, about 30s left]"},
		{"nothing left", 0, 0, "  [20s elapsed]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Two units in 20 s: 10 s each.
			p := &pace{start: time.Now().Add(-20 * time.Second), units: 1}
			if got := p.unitDone(tc.least, tc.most); got != tc.want {
				t.Errorf("unitDone(%d, %d) = %q, want %q", tc.least, tc.most, got, tc.want)
			}
		})
	}
}
