package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Marker is the first line of every comment perfgate writes; the Action
// finds its own sticky comment by it.
const Marker = "<!-- perfgate:report -->"

// MaxComment is the budget of a comment: GitHub refuses bodies above 65,536
// characters, and some room is kept for what the Action adds.
const MaxComment = 65000

// section is one part of the comment. Optional sections are dropped, whole
// and in reverse order of importance, when the comment would be too long.
type section struct {
	name     string
	text     string
	optional bool
	priority int // lower is dropped first
}

// Markdown renders the PR comment body of a report (of a gate, or of a
// recording: see recordingSections) that perfgate wrote here: its
// "Reproduce locally" command takes the report's own values.
func Markdown(rep *report.Report) string {
	return MarkdownFor(rep, ReproductionOf(rep), Links{})
}

// MarkdownWithReproduction is Markdown with a "Reproduce locally" command
// built from r alone (and the report's seed, a number), never from the
// report's strings: for a report.json that may be hostile.
func MarkdownWithReproduction(rep *report.Report, r Reproduction) string {
	return MarkdownFor(rep, r, Links{})
}

// MarkdownFor is the comment with links to where it was measured (the
// run, the artifact, the compared commits, the functions' source); each
// link is built only from values that pass Links.Checked.
//
// A reviewer reads it top down and may stop after the first screen: the
// verdict in one sentence, the hints, what to do next, a compact table of
// the gating metrics and the functions that changed. Everything else (the
// statistics, every metric, benchstat, the invalid runs, the warnings,
// the commands) is folded below it.
func MarkdownFor(rep *report.Report, r Reproduction, links Links) string {
	links = links.Checked()
	if rep.Recording() {
		return fit(recordingSections(rep, r), MaxComment)
	}
	sections := []section{
		{name: "verdict", text: verdictSection(rep, links)},
		{name: "plan", text: planNotice(rep)},
		{name: "hints", text: hintsSection(rep), optional: true, priority: 8},
		{name: "what next", text: nextSteps(rep, links)},
		{name: "metrics", text: summaryTable(rep), optional: true, priority: 9},
		{name: "endpoint regressions", text: endpointsLine(rep)},
		{name: "functions", text: functionsSection(rep, links), optional: true, priority: 6},
		{name: "service hints", text: serviceHintsSection(rep), optional: true, priority: 5},
		{name: "perfgate.yml changes", text: configChangesSection(rep), optional: true, priority: 6},
		{name: "endpoints", text: endpointsSection(rep), optional: true, priority: 3},
		{name: "statistics", text: statisticsSection(rep), optional: true, priority: 5},
		{name: "main's trend", text: mainHistorySection(rep), optional: true, priority: 4},
		{name: "benchstat", text: benchstatSection(rep), optional: true, priority: 2},
		{name: "invalid runs", text: invalidSection(rep), optional: true, priority: 4},
		{name: "warnings", text: warningsSection(rep), optional: true, priority: 3},
		{name: "profiles", text: profilesSection(rep, links), optional: true, priority: 7},
		{name: "reproduce", text: reproduceSection(rep, r), optional: true, priority: 7},
	}
	return fit(sections, MaxComment)
}

// fit joins the sections, dropping optional ones (lowest priority first)
// until the body fits, and says what it dropped.
func fit(sections []section, limit int) string {
	join := func(ss []section, dropped []string) string {
		var b strings.Builder
		b.WriteString(Marker + "\n")
		for _, s := range ss {
			if s.text != "" {
				b.WriteString(s.text)
				b.WriteString("\n")
			}
		}
		if len(dropped) > 0 {
			fmt.Fprintf(&b, "_Left out to fit GitHub's comment size: %s. Everything is in report.json and the artifact._\n", strings.Join(dropped, ", "))
		}
		return b.String()
	}
	kept := append([]section(nil), sections...)
	var dropped []string
	for body := join(kept, dropped); len(body) > limit; body = join(kept, dropped) {
		drop := -1
		for i, s := range kept {
			if s.optional && s.text != "" && (drop < 0 || s.priority < kept[drop].priority) {
				drop = i
			}
		}
		if drop < 0 {
			return body // only the verdict is left; it is short by construction
		}
		dropped = append(dropped, kept[drop].name)
		kept = append(kept[:drop], kept[drop+1:]...)
	}
	return join(kept, dropped)
}

var verdictIcon = map[string]string{
	report.Pass: "✅", report.Improvement: "🚀", report.Regression: "❌",
	report.Inconclusive: "❔", report.Invalid: "⚠️", report.Error: "💥",
}

// verdictSection is the heading, the one-sentence verdict and the line
// of links (or, without links, the compared commits).
func verdictSection(rep *report.Report, links Links) string {
	var b strings.Builder
	if acceptedRegression(rep, links) {
		b.WriteString("### ✅ perfgate: regression accepted\n\n")
	} else {
		fmt.Fprintf(&b, "### %s perfgate: %s\n\n", verdictIcon[rep.Verdict], Text(rep.Verdict))
	}
	fmt.Fprintf(&b, "%s\n\n", headline(rep, links))
	if line := links.linksLine(); line != "" {
		fmt.Fprintf(&b, "%s\n", line)
	} else {
		fmt.Fprintf(&b, "base %s · head %s\n", revision(rep.Build.Base.Revision, rep.Build.Base.Dirty), revision(rep.Build.Head.Revision, rep.Build.Head.Dirty))
	}
	if rep.Build.Error != "" {
		fmt.Fprintf(&b, "\n<details><summary>Build output</summary>\n\n<pre>%s</pre>\n</details>\n", preText(rep.Build.Error))
	}
	return b.String()
}

// statisticsSection folds the numbers behind the verdict: the counts, the
// verdict's reason with its intervals and p-values, how it was measured,
// every metric and the environment.
func statisticsSection(rep *report.Report) string {
	var b strings.Builder
	b.WriteString("<details><summary>Statistics: every metric, intervals, p-values, what this run could detect</summary>\n\n")
	if len(rep.Counts) > 0 {
		fmt.Fprintf(&b, "**%d regressed · %d improved · %d unchanged · %d inconclusive** (gating metrics)\n\n",
			rep.Counts["regression"], rep.Counts["improvement"], rep.Counts["unchanged"], rep.Counts["inconclusive"])
	}
	table := metricsSection(rep)
	if table == "" || !decidedByMetrics[rep.Verdict] {
		// A verdict the metrics decided has its reason in the table below,
		// by the names the rest of the comment uses; report.json's reason
		// (the engine's names: cpu, allocs, CI) would only say it again in
		// other words. Any other verdict's reason is news.
		fmt.Fprintf(&b, "%s\n\n", Prose(rep.Reason))
	}
	if method := Method(rep); method != "" {
		// Numbers and fixed words only: nothing to escape.
		fmt.Fprintf(&b, "%s\n\n", method)
	}
	if table != "" {
		fmt.Fprintf(&b, "%s\n", table)
	}
	fmt.Fprintf(&b, "base %s · head %s\n\n", revision(rep.Build.Base.Revision, rep.Build.Base.Dirty), revision(rep.Build.Head.Revision, rep.Build.Head.Dirty))
	b.WriteString(environmentSection(rep))
	b.WriteString("\n</details>\n")
	return b.String()
}

func revision(rev string, dirty bool) string {
	if rev == "" {
		return "(not a git checkout)"
	}
	rev = shortRevision(rev)
	if dirty {
		rev += " (with uncommitted changes)"
	}
	return Code(rev)
}

// preText escapes multi-line untrusted text for a <pre> block, keeping its
// lines (the only place newlines survive).
func preText(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	for i, l := range lines {
		lines[i] = HTMLText(l)
	}
	return strings.Join(lines, "\n")
}

func metricsSection(rep *report.Report) string {
	if len(rep.Metrics) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| metric | base (median) | head (median) | Δ (paired) | confidence interval | ruled out above | p | outcome | could detect |\n|---|--:|--:|--:|--:|--:|--:|---|--:|\n")
	for _, m := range rep.Metrics {
		c := metric.Of(m)
		outcome := m.Outcome
		if !m.Gates {
			outcome += " (reported only)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s (%s) | %s | %s | %s %s | %s |\n",
			UpperFirst(titleOf(m)), cell(c, c.Format(m.Base)), cell(c, c.Format(m.Head)), cell(c, c.FormatChange(m.Delta)),
			cell(c, c.FormatInterval(m.CI[0], m.CI[1])), metric.Percent(m.CILevel), cell(c, ruledOut(m)), metric.PValue(m.ShownP()),
			outcomeIcon[m.Outcome], Text(outcome), cell(c, detectable(m)))
	}
	fmt.Fprintf(&b, "\n_%s %s %s_\n", pNote, likelyRangeNote, ruledOutNote)
	if note := LatencyNote(rep); note != "" {
		fmt.Fprintf(&b, "\n_%s_\n", note)
	}
	return b.String()
}

// decidedByMetrics are the verdicts whose reason is their metrics' outcomes.
var decidedByMetrics = map[string]bool{report.Regression: true, report.Inconclusive: true, report.Improvement: true, report.Pass: true}

// pNote says which hypothesis the metrics tables' p is against: the
// threshold sits inside it (stats.IndifferenceShare).
const pNote = "p is one-sided in the direction of the change, against a change of half the threshold (an increase on a row that rose, a decrease on one that fell), adjusted for the gating metrics and the look; a regression needs p ≤ alpha and the estimate above the threshold."

// likelyRangeNote ties the statistics' table to the first screen's words.
const likelyRangeNote = "Δ is the paired estimate over the rounds (the first screen's change), which need not match the medians beside it (a p99 can fall from median to median and still rise in most rounds), and the confidence interval is the first screen's likely range."

// shown passes a formatted figure of a catalog metric as it is (numbers
// and the catalog's own units), and escapes one of a metric the report
// alone describes, whose unit is untrusted text.
func shown(c *metric.Metric, s string) string {
	if known, ok := metric.Lookup(c.Name); ok && known == c {
		return s
	}
	return Text(s)
}

var outcomeIcon = map[string]string{"regression": "🔴", "improvement": "🟢", "unchanged": "⚪", "inconclusive": "🟡"}

// environmentSection is the fold's last line: what was measured (the
// valid rounds that counted, not the plan's minimum), under which limits,
// on what. A field the report does not know (a target that cannot see
// the node's kernel) is left out rather than shown as 0 or empty.
func environmentSection(rep *report.Report) string {
	e := rep.Environment
	cfg := rep.Config
	valid := 0
	for _, r := range roundsOf(rep.Runs) {
		if r.valid() {
			valid++
		}
	}
	unit := "pair"
	if designOf(rep) == designDuet {
		unit = "round"
	}
	parts := []string{fmt.Sprintf("%s × %s at %s req/s", count(valid, "valid "+unit), Text(cfg.Load.Duration.String()), Text(fmt.Sprint(cfg.Load.Rate)))}
	limits := fmt.Sprintf("cpu %s, memory %s", Text(cfg.Resources.CPU.String()), Text(cfg.Resources.Memory.String()))
	if e.GOMAXPROCS > 0 {
		limits += fmt.Sprintf(", GOMAXPROCS %d", e.GOMAXPROCS)
	}
	parts = append(parts, limits)
	var machine []string
	if e.CPUs > 0 {
		machine = append(machine, fmt.Sprintf("%d CPUs", e.CPUs))
	}
	if e.Kernel != "" {
		machine = append(machine, "kernel "+Text(e.Kernel))
	}
	where := strings.TrimSpace(Text(e.Confinement) + " on " + Text(e.CPUModel))
	switch {
	case e.CPUModel == "" && e.Confinement == "":
		where = ""
	case e.CPUModel == "":
		where = Text(e.Confinement)
	}
	if len(machine) > 0 {
		where = strings.TrimSpace(where + " (" + strings.Join(machine, ", ") + ")")
	}
	if where != "" {
		parts = append(parts, where)
	}
	if e.GoVersion != "" {
		parts = append(parts, Text(e.GoVersion))
	}
	parts = append(parts, "alpha "+Text(fmt.Sprint(cfg.Gate.Alpha)))
	return "<sub>" + strings.Join(parts, " · ") + "</sub>\n"
}

// serviceHintsSection is one line per hint about the service itself
// (a profile it never turned on).
func serviceHintsSection(rep *report.Report) string {
	if len(rep.ServiceHints) == 0 {
		return ""
	}
	// Folded, one line on the first screen: they are about the service,
	// not about this change.
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>ℹ️ About the service: %s</summary>\n\n", count(len(rep.ServiceHints), "note"))
	for _, h := range rep.ServiceHints {
		fmt.Fprintf(&b, "%s\n\n", ProseNamingFunctions(h.Message))
	}
	b.WriteString("</details>\n")
	return b.String()
}

// shownHints is how many hints the first screen lists.
const shownHints = 3

// hintsSection lists the root-cause hints: the likely cause.
func hintsSection(rep *report.Report) string {
	if len(rep.Hints) == 0 {
		return ""
	}
	var b strings.Builder
	// The service's own functions read as in the tables, without the
	// module path ("httpapi.(*Server).handleSearch").
	short := func(s string) string {
		if m := rep.Build.Head.Module; m != "" {
			s = strings.ReplaceAll(s, m+"/", "")
		}
		return ProseNamingFunctions(s)
	}
	if len(rep.Hints) == 1 {
		h := rep.Hints[0]
		fmt.Fprintf(&b, "**Likely cause** (%s): %s (%s)\n", Text(h.Rule), short(h.Message), short(h.Evidence))
		return b.String()
	}
	b.WriteString("**Likely cause**\n\n")
	hint := func(h report.Hint) {
		fmt.Fprintf(&b, "- **%s**: %s (%s)\n", Text(h.Rule), short(h.Message), short(h.Evidence))
	}
	for _, h := range rep.Hints[:min(len(rep.Hints), shownHints)] {
		hint(h)
	}
	if rest := rep.Hints[min(len(rep.Hints), shownHints):]; len(rest) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d more hints</summary>\n\n", len(rest))
		for _, h := range rest {
			hint(h)
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

func benchstatSection(rep *report.Report) string {
	if len(rep.Benchstat) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<details><summary>benchstat (unpaired)</summary>\n\n| | base | head | vs base |\n|---|--:|--:|---|\n")
	for _, r := range rep.Benchstat {
		delta := Text(r.Delta)
		if r.Delta == "~" {
			// benchstat's "no change", followed by " (": it can neither
			// open nor close a strikethrough there.
			delta = "~"
		}
		fmt.Fprintf(&b, "| %s | %s ± %s | %s ± %s | %s (%s) |\n", Text(r.Metric), metric.Number(r.Base), Text(r.BaseRange), metric.Number(r.Head), Text(r.HeadRange), delta, Text(r.Note))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

func invalidSection(rep *report.Report) string {
	return invalidRunsTable(rep, "| pair | side | reason |\n|--:|---|---|", func(r report.Run) string {
		return fmt.Sprintf("| %d | %s | %s |", r.Pair, Text(r.Side), Text(strings.Join(r.InvalidReasons, "; ")))
	})
}

// invalidRunsTable lists the invalid runs, one row each, folded away.
func invalidRunsTable(rep *report.Report, header string, row func(report.Run) string) string {
	var rows []string
	for _, r := range rep.Runs {
		if !r.Valid {
			rows = append(rows, row(r))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return fmt.Sprintf("<details><summary>%s (never counted)</summary>\n\n%s\n%s\n\n</details>\n", count(len(rows), "invalid run"), header, strings.Join(rows, "\n"))
}

func warningsSection(rep *report.Report) string {
	if len(rep.Warnings) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", count(len(rep.Warnings), "warning"))
	for _, w := range rep.Warnings {
		fmt.Fprintf(&b, "- %s\n", Prose(w))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}
