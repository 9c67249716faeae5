package experiment

import (
	"fmt"
	"strings"
	"time"

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

// pace times an experiment for its progress lines: the time since it
// began and, at the mean time per unit (round, pair or run) so far, how
// long the units still to come take. An adaptive gate stops anywhere
// between its minimum and its maximum, so the time left is a range.
type pace struct {
	start time.Time
	units int
}

func newPace() *pace { return &pace{start: time.Now()} }

// unitDone counts a unit as measured and says where the experiment
// stands, with least to most units still to come.
func (p *pace) unitDone(least, most int) string {
	p.units++
	elapsed := time.Since(p.start)
	per := elapsed / time.Duration(p.units)
	s := "  [" + roughly(elapsed) + " elapsed"
	switch {
	case most <= 0:
	case least >= most:
		s += ", about " + roughly(per*time.Duration(most)) + " left"
	default:
		s += ", " + roughly(per*time.Duration(least)) + " to " + roughly(per*time.Duration(most)) + " left"
	}
	return s + "]"
}

// roughly shows a duration to the second: "1m12s".
func roughly(d time.Duration) string { return d.Round(time.Second).String() }
