package render

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// detectable says the smallest change the run could see, never below the
// threshold (a smaller one would not fail the gate anyway): the "could
// detect" column of the terminal, Markdown and HTML tables, and the
// method sentence.
func detectable(m report.Metric) string {
	if m.Detectable == nil {
		return fmt.Sprintf("nothing: %d pairs are too few", m.Pairs)
	}
	return "≥ " + metric.Of(m).FormatChange(max(*m.Detectable, m.Threshold))[1:]
}
