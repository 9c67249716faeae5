package render

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// detectable says the smallest change the run could see, never below the
// threshold (a smaller one would not fail the gate anyway), and in
// parentheses its range (what it would be at the lowest and highest noise
// the rounds allow) where the range is wider than the precision shown: the
// "could detect" column of the terminal, Markdown and HTML tables, and the
// method sentence.
func detectable(m report.Metric) string {
	if m.Detectable == nil {
		return fmt.Sprintf("nothing: %d pairs are too few", m.Pairs)
	}
	size := func(change float64) string { return metric.Of(m).FormatChange(max(change, m.Threshold))[1:] }
	s := "≥ " + size(*m.Detectable)
	if r := m.DetectableRange; r != nil {
		if low, high := size(r[0]), size(r[1]); low != high {
			s += " (" + low + " to " + high + ")"
		}
	}
	return s
}
