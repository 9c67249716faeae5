package render

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// printFunctions writes the largest flat changes of each profile and
// unit, at most top of each.
func printFunctions(w io.Writer, functions []report.Function, top int) {
	shown := map[string]int{}
	for _, f := range functions {
		key := f.Profile + " " + f.Unit
		if f.Kind != "flat" || shown[key] >= top {
			continue
		}
		if shown[key] == 0 {
			fmt.Fprintf(w, "  %s (%s):\n", f.Profile, f.Unit)
		}
		shown[key]++
		where := f.Name
		if f.Via != "" {
			where += " in " + f.Via
		}
		if f.Caller != "" {
			where += " from " + f.Caller
		}
		fmt.Fprintf(w, "    %12s  %-7s %s\n", metric.Signed(f.Delta), f.Status, where)
	}
}
