package render

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// ruledOutNote says what the metrics tables' "ruled out above" column is:
// the bound "unchanged" is decided by (stats.MissRate), looser than the
// interval's, whose ends are the tests' at alpha.
const ruledOutNote = "Unchanged needs a rise beyond the threshold ruled out at a 10% miss rate, spread over the looks as alpha is: \"ruled out above\" is the change this look excludes above, with its confidence."

// ruledOut is a metric's "ruled out above" cell: the increase its look
// ruled out at the miss rate and how sure ("+1.2% (95.0%)"), or "—"
// where no bound decided (failures, unchanged when their excess is not
// significant; no pairs; a report written before the miss rate).
func ruledOut(m report.Metric) string {
	if m.RuledOutLevel <= 0 {
		return "—"
	}
	c := metric.Of(m)
	return fmt.Sprintf("%s (%s)", c.FormatChange(m.RuledOutAbove), metric.Percent(m.RuledOutLevel))
}
