package render

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// headline is the comment's first sentence: the verdict in words, the
// biggest change in the reviewer's units and, from the profiles, where
// most of it went. A reviewer who reads only this line knows what
// happened.
func headline(rep *report.Report, links Links) string {
	accepted := ""
	if acceptedRegression(rep, links) {
		accepted = fmt.Sprintf("Accepted with the label %s, added by %s. ", Code(links.AcceptLabel), Code(links.AcceptedBy))
	}
	switch rep.Verdict {
	case report.Regression:
		return accepted + changeSentence(rep, outcomeMetrics(rep, report.Regression), "Also regressed")
	case report.Improvement:
		return changeSentence(rep, outcomeMetrics(rep, report.Improvement), "Also improved") + " Nothing regressed."
	case report.Pass:
		return "No gating metric changed beyond its threshold."
	case report.Inconclusive:
		return "**Not decided**: " + undecidedSentence(outcomeMetrics(rep, report.Inconclusive)) + "; nothing is known to have regressed."
	case report.Invalid:
		// The reason starts with the verdict's own words; said once.
		return "**The measurement is invalid**: too few rounds could be compared: " + Prose(strings.TrimPrefix(rep.Reason, "invalid measurement: "))
	}
	return "**perfgate could not finish**: " + Prose(rep.Reason)
}

// undecidedSentence says why each inconclusive metric is undecided, as
// stats.outcome decides it: a rise past the threshold is not yet ruled out
// (report.Metric.PassBound), or it is but too few valid rounds measured it
// for the bound to reach its level (a narrow interval from three
// rounds proves nothing), or no round could be compared at all.
func undecidedSentence(undecided []report.Metric) string {
	var straddle, short, none []string
	for _, m := range undecided {
		switch {
		case m.Pairs == 0:
			none = append(none, titleOf(m))
		case passBoundAbove(m):
			straddle = append(straddle, titleOf(m))
		default:
			short = append(short, fmt.Sprintf("%s (%d)", titleOf(m), m.Pairs))
		}
	}
	var parts []string
	if len(straddle) > 0 {
		parts = append(parts, fmt.Sprintf("%s could still be above or below %s threshold", strings.Join(straddle, ", "), map[bool]string{true: "its", false: "their"}[len(straddle) == 1]))
	}
	if len(short) > 0 {
		parts = append(parts, fmt.Sprintf("%s had too few valid rounds for %s interval to reach the gate's level", strings.Join(short, ", "), map[bool]string{true: "its", false: "their"}[len(short) == 1]))
	}
	if len(none) > 0 {
		parts = append(parts, fmt.Sprintf("%s could not be compared in any round", strings.Join(none, ", ")))
	}
	return strings.Join(parts, "; ")
}

// acceptedRegression is a regression whose pull request carries the
// accepting label.
func acceptedRegression(rep *report.Report, links Links) bool {
	return rep.Verdict == report.Regression && links.AcceptLabel != "" && links.AcceptedBy != ""
}

// outcomeMetrics are the gating metrics with an outcome, the biggest
// change against its threshold first.
func outcomeMetrics(rep *report.Report, outcome string) []report.Metric {
	var ms []report.Metric
	for _, m := range rep.Metrics {
		if m.Gates && m.Outcome == outcome {
			ms = append(ms, m)
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return overThreshold(ms[i]) > overThreshold(ms[j]) })
	return ms
}

// overThreshold is how many thresholds the change spans, so a +37% on a
// 2% threshold outranks +78 KiB on a 64 KiB one.
func overThreshold(m report.Metric) float64 {
	if m.Threshold <= 0 {
		return math.Abs(m.Delta)
	}
	return math.Abs(m.Delta) / m.Threshold
}

// changeSentence names the biggest change, where it went, and the other
// metrics with the same outcome.
func changeSentence(rep *report.Report, ms []report.Metric, others string) string {
	if len(ms) == 0 {
		return Prose(rep.Reason)
	}
	top := ms[0]
	s := fmt.Sprintf("**%s %s**", UpperFirst(titleOf(top)), changeInUnits(top))
	if where := whereItWent(rep, top); where != "" {
		s += ": " + where
	}
	s += "."
	if len(ms) > 1 {
		rest := make([]string, 0, len(ms)-1)
		for _, m := range ms[1:] {
			// Their amounts are in the table right below.
			c := metric.Of(m)
			rest = append(rest, titleOf(m)+" "+shown(c, c.FormatChange(m.Delta)))
		}
		s += fmt.Sprintf(" %s: %s.", others, strings.Join(rest, ", "))
	}
	return s
}

// titleOf is a metric's name in a sentence: the catalog's title, or the
// report's own name, escaped.
func titleOf(m report.Metric) string { return titleOfName(m.Name) }

// titleOfName is titleOf for a metric known by its name alone (a median,
// a paired estimate).
func titleOfName(name string) string {
	if t := catalogTitle(name); t != "" {
		return t
	}
	return Text(name)
}

// catalogTitle is the catalog's title of a metric name, "" for a name the
// catalog does not know (or gives no title).
func catalogTitle(name string) string {
	if c, ok := metric.Lookup(name); ok {
		return c.Title
	}
	return ""
}

// changeInUnits shows a change as a reviewer reads it: "+37.0% (+33.2
// allocs/req)" for a relative metric, "+78.12 KiB/1k req" for an
// absolute one. The amount is the paired estimate applied to the base's
// median, not the difference of the medians: the two medians can differ
// by much less or more than the rounds' paired ratios say (a gate of
// go-httpbin: medians 180.4 and 181.1 µs, +0.4%, beside a paired +2.0%),
// and one sentence must not state two different changes.
func changeInUnits(m report.Metric) string {
	c := metric.Of(m)
	change := shown(c, c.FormatChange(m.Delta))
	if c.Scale != metric.Relative {
		return change
	}
	return fmt.Sprintf("%s (%s)", change, shown(c, c.FormatAmount(m.Base*m.Delta)))
}

// profileOfMetric says which profile and unit explain a metric's change.
var profileOfMetric = map[string]struct{ profile, unit string }{
	"cpu":    {"cpu", "µs/req"},
	"allocs": {"allocs", "allocs/req"},
	"bytes":  {"allocs", "B/req"},
}

// whereItWent names the (at most two) functions whose own cost grew most
// in the profile that explains the metric, and what share of the
// metric's change they carry: "71% of it in new fmt.Sprintf and
// httpapi.(*Server).handleSearch".
func whereItWent(rep *report.Report, m report.Metric) string {
	p, ok := profileOfMetric[m.Name]
	change := m.Head - m.Base
	if !ok || change == 0 {
		return ""
	}
	// A function's own cost can come in several rows, one per runtime
	// function it reached (handleSearch via runtime.mapassign_faststr,
	// via runtime.makeslice): the headline weighs the function whole.
	var top []report.Function
	at := map[string]int{}
	for _, f := range rep.Functions {
		if f.Kind != "flat" || f.Profile != p.profile || f.Unit != p.unit || attribution.RuntimeInternal(f.Name) {
			continue
		}
		if i, ok := at[f.Name]; ok {
			top[i].Delta += f.Delta
			if top[i].Status != f.Status {
				top[i].Status = "changed"
			}
			continue
		}
		at[f.Name] = len(top)
		top = append(top, f)
	}
	kept := top[:0]
	for _, f := range top {
		if f.Delta*change > 0 {
			kept = append(kept, f)
		}
	}
	top = kept
	if len(top) == 0 {
		return ""
	}
	sort.SliceStable(top, func(i, j int) bool { return math.Abs(top[i].Delta) > math.Abs(top[j].Delta) })
	if len(top) > 2 {
		top = top[:2]
	}
	sum := 0.0
	names := make([]string, len(top))
	for i, f := range top {
		sum += f.Delta
		names[i] = Code(shortName(f.Name))
		if f.Status == "new" {
			names[i] = "new " + names[i]
		}
	}
	share := sum / change
	switch {
	case share >= 0.95:
		return "nearly all of it in " + strings.Join(names, " and ")
	case share >= 0.1:
		return fmt.Sprintf("%.0f%% of it in %s", 100*share, strings.Join(names, " and "))
	}
	return ""
}

// shortName drops a function's import path up to its package:
// "example.com/svc/httpapi.(*Server).handleSearch" is
// "httpapi.(*Server).handleSearch".
func shortName(name string) string {
	paren := strings.IndexAny(name, "(")
	head := name
	if paren >= 0 {
		head = name[:paren]
	}
	if slash := strings.LastIndex(head, "/"); slash >= 0 {
		return name[slash+1:]
	}
	return name
}

// UpperFirst is s with its first letter in upper case, for the start of a
// sentence or a title.
func UpperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// passBoundAbove says whether m's look left a rise past its threshold
// possible: the bound "unchanged" needs is above it.
func passBoundAbove(m report.Metric) bool {
	bound, _ := m.PassBound()
	return bound > m.Threshold
}
