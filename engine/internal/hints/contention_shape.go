package hints

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// contentionHidden says when the gate's shape cannot show lock
// contention: at GOMAXPROCS 1 a service runs one goroutine at a time, so
// a lock around the hot path (the "global lock" incident) waits for
// nothing that would otherwise have run in parallel, and its mutex and
// block profiles stay quiet. Saying so is better than a silent pass.
func contentionHidden(rep *report.Report) []report.Hint {
	if rep.Environment.GOMAXPROCS != 1 {
		return nil
	}
	return []report.Hint{{
		Rule: "contention-hidden",
		Message: "Lock contention cannot show in this gate: the service ran with GOMAXPROCS 1, one goroutine at a time, so a lock on the hot path serialises nothing. " +
			"To reveal contention, give each side at least 2 CPUs (resources.cpu: 2, which sets GOMAXPROCS 2) on a machine with the CPUs for both sides and the load generator (3 or more in a duet).",
		Evidence: fmt.Sprintf("GOMAXPROCS 1 (%s)", rep.Environment.GOMAXPROCSSource),
	}}
}
