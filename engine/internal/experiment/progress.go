package experiment

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func progressLine(r report.Run, n, total int) string {
	f := r.Figures
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] pair %d %-4s %6d req  %8.1f µs CPU/req", n, total, r.Pair, r.Side, f.Requests, f.CPUMicrosPerRequest)
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
