package experiment

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// progressLine is one run as it is measured: its unit (round or pair), how
// many valid ones came before it and the most the experiment takes, and
// its main figures.
func progressLine(r report.Run, validBefore, maxValid int) string {
	f := r.Figures
	var b strings.Builder
	unit, count := "pair", fmt.Sprintf("[%d valid of at most %d] ", validBefore, maxValid)
	switch {
	case r.ProfileRound:
		unit, count = "profile round", ""
	case r.Duet != nil:
		unit = "round"
	}
	fmt.Fprintf(&b, "%s%s %d %-4s %6d req  %8.1f µs CPU/req", count, unit, r.Pair, r.Side, f.Requests, f.CPUMicrosPerRequest)
	if f.AllocsPerRequest != nil {
		fmt.Fprintf(&b, "  %8.1f allocs/req  %9.0f B/req", *f.AllocsPerRequest, *f.BytesPerRequest)
	}
	fmt.Fprintf(&b, "  p99 %6.2f ms", f.LatencyP99Ms)
	if r.Valid {
		b.WriteString("  valid")
	} else {
		b.WriteString("  INVALID: " + strings.Join(r.InvalidReasons, "; "))
	}
	return b.String()
}
