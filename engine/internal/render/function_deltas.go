package render

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// shownFunctions is how many function deltas the comment's first screen
// lists; the rest are folded.
const shownFunctions = 3

// runtimeFloor is the share of a request's cost (the base's CPU,
// allocations or bytes per request) below which a change inside the Go
// runtime is noise to a reviewer: a lock the scheduler took 0.03 µs
// longer is beyond sampling noise, but not something the pull request
// did.
const runtimeFloor = 0.01

// ReviewedFunctions are the flat function deltas worth a reviewer's
// time, in the order the comment lists them: the profiles in their usual
// order, the biggest change first within each. A runtime-internal change
// smaller than runtimeFloor of the request's cost in its unit is left out.
func ReviewedFunctions(rep *report.Report) (kept []report.Function, noise int) {
	// A request's cost in each profile unit is the base's value of the
	// metric that unit explains; CPU, mutex and block delays are all time
	// per request (µs/req), so CPU's figure serves all three.
	reference := map[string]float64{}
	for _, m := range rep.Metrics {
		if p, ok := profileOfMetric[m.Name]; ok {
			reference[p.unit] = m.Base
		}
	}
	for _, f := range rep.Functions {
		if f.Kind != "flat" {
			continue
		}
		if ref, ok := reference[f.Unit]; ok && ref > 0 && attribution.RuntimeInternal(f.Name) && math.Abs(f.Delta) < runtimeFloor*ref {
			noise++
			continue
		}
		kept = append(kept, f)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if ri, rj := profileRank(kept[i].Profile), profileRank(kept[j].Profile); ri != rj {
			return ri < rj
		}
		if kept[i].Unit != kept[j].Unit {
			// The allocs profile's two units: allocations before bytes,
			// the metrics' order.
			return kept[i].Unit == "allocs/req"
		}
		return math.Abs(kept[i].Delta) > math.Abs(kept[j].Delta)
	})
	return kept, noise
}

func profileRank(p string) int {
	return strings.Index("cpu allocs mutex block goroutine heap", p)
}

// functionsSection is the first screen's table of the biggest function
// deltas, and the rest folded.
func functionsSection(rep *report.Report, links Links) string {
	fs, noise := ReviewedFunctions(rep)
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(functionTable(rep, fs[:min(len(fs), shownFunctions)], links, "**Where it changed**"))
	rest := fs[min(len(fs), shownFunctions):]
	if len(rest) > 0 || noise > 0 {
		// The runtime's own small changes are said only here, folded:
		// they are in report.json, and not what the pull request did.
		left := ""
		if noise > 0 {
			left = fmt.Sprintf("; %s below %s of a request's cost not shown", count(noise, "runtime-internal change"), metric.Percent(runtimeFloor))
		}
		fmt.Fprintf(&b, "\n<details><summary>%d more function deltas%s</summary>\n\n%s\n</details>\n", len(rest), left, functionTable(rep, rest, links, "cost"))
	}
	return b.String()
}

// functionTable is a table of function deltas (head − base, beyond
// noise) whose first column is headed first.
func functionTable(rep *report.Report, fs []report.Function, links Links, first string) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | function (head − base, beyond noise) | base | head | change |\n|---|---|--:|--:|--:|\n", first)
	for _, f := range fs {
		status := ""
		if f.Status != "changed" {
			status = " (" + Text(f.Status) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s%s%s | %s | %s | %s |\n", profileTitle(f), functionName(rep, f, links), status, context(f), metric.Number(f.Base), metric.Number(f.Head), metric.Signed(f.Delta))
	}
	return b.String()
}

// profileTitles name what a function row measures in the words of the
// metrics it explains (the catalog's titles), with the unit of its
// numbers; attribution.go lists the profiles and units.
var profileTitles = map[[2]string]string{
	{"cpu", "µs/req"}:           "CPU per request (µs)",
	{"allocs", "allocs/req"}:    "allocations per request",
	{"allocs", "B/req"}:         "bytes allocated per request (B)",
	{"mutex", "µs/req"}:         "mutex wait per request (µs)",
	{"block", "µs/req"}:         "blocked time per request (µs)",
	{"goroutine", "goroutines"}: "goroutines at the end of the window",
	{"heap", "B"}:               "live heap at the end of the window (B)",
}

// profileTitle is a function row's first cell: profileTitles' words, or
// the report's own profile and unit, escaped.
func profileTitle(f report.Function) string {
	if t, ok := profileTitles[[2]string{f.Profile, f.Unit}]; ok {
		return t
	}
	return Text(f.Profile + " " + f.Unit)
}

// context says where a row's cost was: in which runtime function the
// function spent it, and which of the service's functions reached it.
func context(f report.Function) string {
	var parts []string
	if f.Via != "" {
		parts = append(parts, "in "+Code(f.Via))
	}
	if f.Caller != "" {
		parts = append(parts, "from "+Code(shortName(f.Caller)))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// functionName shows a function's name without its module path (which
// the link and report.html carry: the full name made every row with a
// via and a caller wrap), linked to its source at the head commit when
// the report knows the file and the links know the repository: at the
// line that called the runtime function it was charged through, or
// else the line with most of its samples.
func functionName(rep *report.Report, f report.Function, links Links) string {
	line := f.Line
	if f.CallLine > 0 {
		line = f.CallLine
	}
	name := Code(shortName(f.Name))
	if u := links.sourceURL(repositoryPath(rep.Build.Head, f), line); u != "" {
		return fmt.Sprintf("[%s](%s)", name, u)
	}
	return name
}
