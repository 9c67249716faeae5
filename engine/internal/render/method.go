package render

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Experiment designs, as report.json's experiment names them.
const (
	designDuet       = "duet"
	designSequential = "sequential"
	designRecord     = "record"
)

// latencyInDuet is said once wherever a duet's latency quantiles are
// shown: each side's latency was measured while the other side used the
// same CPUs, which production does not do.
const latencyInDuet = "Latency measured while base and head shared the CPUs, each at the configured rate; for latency that must look like production, use experiment: sequential."

// Method is one sentence on how a gate measured, said by report.md,
// report.html and the CLI summary alike: the design (a duet, or pairs one
// after the other, and why pairs when a duet was asked for), how many
// rounds counted and how long each window was, how far the rounds
// disagreed on CPU per request, and what change of it the gate could
// detect. It is built from numbers and fixed words only, never from a
// string of the report, so it needs no escaping. It is "" for a recording
// (nothing compared) and when nothing was measured.
func Method(rep *report.Report) string {
	design := designOf(rep)
	rounds := roundsOf(rep.Runs)
	if design == designRecord || len(rounds) == 0 {
		return ""
	}
	valid, invalid := 0, 0
	for _, r := range rounds {
		switch {
		case r.valid():
			valid++
		case r.invalid():
			invalid++
		}
	}
	unit := "pair"
	if design == designDuet {
		unit = "round"
	}
	var notes []string
	if design == designDuet {
		notes = append(notes, "base and head at the same time on the same CPUs")
	} else if rep.Experiment == designSequential && rep.Config.Experiment == designDuet {
		// Only a target that cannot duet runs pairs when a duet was
		// configured (session/invocation.go), and its warning says why.
		notes = append(notes, "a duet was asked for, but the target cannot run one: see the warnings")
	}
	window := ""
	if d := rep.Config.Load.Duration; d > 0 {
		window = " of " + d.String()
	}
	var b strings.Builder
	if valid == 0 {
		if design == designDuet {
			fmt.Fprintf(&b, "Measured as a duet in rounds%s (%s): no round had both sides valid", window, strings.Join(notes, "; "))
		} else {
			fmt.Fprintf(&b, "Measured as pairs%s run one after the other", window)
			if len(notes) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
			}
			b.WriteString(": no pair had both runs valid")
		}
		fmt.Fprintf(&b, " (%s).", count(invalid, "invalid "+unit))
		return b.String()
	}
	if invalid > 0 {
		fate := "replaced"
		if valid < rep.Config.Pairs {
			fate = "not counted"
		}
		notes = append(notes, fmt.Sprintf("%s %s", count(invalid, "invalid "+unit), fate))
	}
	if design == designDuet {
		fmt.Fprintf(&b, "Measured as a duet: %s%s (%s)", count(valid, unit), window, strings.Join(notes, "; "))
	} else {
		fmt.Fprintf(&b, "Measured as %s%s run one after the other", count(valid, unit), window)
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
		}
	}
	if sd, ok := spread(rounds, metric.CPU); ok {
		fmt.Fprintf(&b, ", per-%s spread %.1f%%", unit, 100*sd)
	}
	if m, ok := findMetric(rep, metric.CPU); ok {
		if m.Detectable != nil {
			fmt.Fprintf(&b, ", could detect %s CPU/request", detectable(m))
		} else {
			verb := "are"
			if m.Pairs == 1 {
				verb = "is"
			}
			fmt.Fprintf(&b, "; %s %s too few to detect any change of CPU/request at alpha %g", count(m.Pairs, unit), verb, rep.Config.Gate.Alpha)
		}
	}
	b.WriteString(".")
	return b.String()
}

// LatencyNote is the note on a duet's latency (latencyInDuet) when the
// report was a duet and shows latency quantiles, otherwise "".
func LatencyNote(rep *report.Report) string {
	if designOf(rep) != designDuet {
		return ""
	}
	for _, m := range rep.Metrics {
		if isLatency(m.Name) {
			return latencyInDuet
		}
	}
	for _, md := range rep.Summary {
		if isLatency(md.Name) {
			return latencyInDuet
		}
	}
	return ""
}

func isLatency(name string) bool {
	for _, m := range []*metric.Metric{metric.LatencyP50, metric.LatencyP90, metric.LatencyP99, metric.LatencyMax} {
		if m.Name == name {
			return true
		}
	}
	return false
}

// designOf is the experiment the report ran. Reports from before
// report.json named it were sequential pairs, unless their runs say they
// were duet rounds.
func designOf(rep *report.Report) string {
	switch rep.Experiment {
	case designDuet, designSequential, designRecord:
		return rep.Experiment
	}
	if rep.Recording() {
		return designRecord
	}
	for _, r := range rep.Runs {
		if r.Duet != nil {
			return designDuet
		}
	}
	return designSequential
}

// round is one round of a duet (or one pair of a sequential experiment):
// its base and head runs, nil when not measured.
type round struct {
	number     int
	base, head *report.Run
}

// valid reports whether both runs were measured and are valid: only such
// rounds are compared.
func (r round) valid() bool {
	return r.base != nil && r.head != nil && r.base.Valid && r.head.Valid
}

// invalid reports whether a run of the round was measured and is invalid
// (a round cut short by an interruption is neither valid nor invalid).
func (r round) invalid() bool {
	return (r.base != nil && !r.base.Valid) || (r.head != nil && !r.head.Valid)
}

// reason says why an invalid round was not compared: each invalid run's
// side and reasons, for instance "head: OOM-killed".
func (r round) reason() string {
	var parts []string
	for _, run := range []*report.Run{r.base, r.head} {
		if run != nil && !run.Valid {
			why := strings.Join(run.InvalidReasons, "; ")
			if why == "" {
				why = "invalid"
			}
			parts = append(parts, run.Side+": "+why)
		}
	}
	return strings.Join(parts, "; ")
}

// logRatio is log(head/base) of a relative metric m in the round; ok is
// false when a side did not measure it.
func (r round) logRatio(m *metric.Metric) (float64, bool) {
	if r.base == nil || r.head == nil {
		return 0, false
	}
	b, okB := m.Value(r.base.Figures)
	h, okH := m.Value(r.head.Figures)
	if !okB || !okH || b <= 0 || h <= 0 {
		return 0, false
	}
	return math.Log(h / b), true
}

// roundsOf groups runs by round (runs[].pair), in round order. Runs of
// another side (a recording's) are left out.
func roundsOf(runs []report.Run) []round {
	byNumber := map[int]*round{}
	for i := range runs {
		run := &runs[i]
		side := metric.SideOf(*run)
		// A duet's profile rounds are not compared: profiling biases them.
		if (side != metric.Base && side != metric.Head) || run.ProfileRound {
			continue
		}
		r := byNumber[run.Pair]
		if r == nil {
			r = &round{number: run.Pair}
			byNumber[run.Pair] = r
		}
		if side == metric.Base {
			r.base = run
		} else {
			r.head = run
		}
	}
	out := make([]round, 0, len(byNumber))
	for _, r := range byNumber {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

// spread is the standard deviation of log(head/base) of m over the valid
// rounds: how far rounds disagree, as a fraction. ok is false below two
// rounds.
func spread(rounds []round, m *metric.Metric) (float64, bool) {
	var xs []float64
	for _, r := range rounds {
		if !r.valid() {
			continue
		}
		if x, ok := r.logRatio(m); ok {
			xs = append(xs, x)
		}
	}
	if len(xs) < 2 {
		return 0, false
	}
	return stats.SD(xs), true
}

// findMetric is the report's comparison of catalog metric c.
func findMetric(rep *report.Report, c *metric.Metric) (report.Metric, bool) {
	for _, m := range rep.Metrics {
		if m.Name == c.Name && metric.Of(m) == c {
			return m, true
		}
	}
	return report.Metric{}, false
}

// count is "1 round", "6 rounds".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
