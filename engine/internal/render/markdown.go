package render

import (
	"fmt"
	"sort"
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
	return MarkdownWithReproduction(rep, ReproductionOf(rep))
}

// MarkdownWithReproduction is Markdown with a "Reproduce locally" command
// built from r alone (and the report's seed, a number), never from the
// report's strings: for a report.json that may be hostile.
func MarkdownWithReproduction(rep *report.Report, r Reproduction) string {
	if rep.Recording() {
		return fit(recordingSections(rep, r), MaxComment)
	}
	sections := []section{
		{name: "verdict", text: verdictSection(rep)},
		{name: "config changes", text: configChangesSection(rep)},
		{name: "metrics", text: metricsSection(rep), optional: true, priority: 9},
		{name: "main's trend", text: mainHistorySection(rep), optional: true, priority: 4},
		{name: "environment", text: environmentSection(rep), optional: true, priority: 5},
		{name: "functions", text: functionsSection(rep), optional: true, priority: 6},
		{name: "hints", text: hintsSection(rep), optional: true, priority: 8},
		{name: "benchstat", text: benchstatSection(rep), optional: true, priority: 2},
		{name: "invalid runs", text: invalidSection(rep), optional: true, priority: 4},
		{name: "warnings", text: warningsSection(rep), optional: true, priority: 3},
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

func verdictSection(rep *report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s perfgate: %s\n\n", verdictIcon[rep.Verdict], Text(rep.Verdict))
	if len(rep.Counts) > 0 {
		fmt.Fprintf(&b, "**%d regressed · %d improved · %d unchanged · %d inconclusive** (gating metrics)\n\n",
			rep.Counts["regression"], rep.Counts["improvement"], rep.Counts["unchanged"], rep.Counts["inconclusive"])
	}
	fmt.Fprintf(&b, "%s\n\n", Prose(rep.Reason))
	if method := Method(rep); method != "" {
		// Numbers and fixed words only: nothing to escape.
		fmt.Fprintf(&b, "%s\n\n", method)
	}
	fmt.Fprintf(&b, "base %s · head %s\n", revision(rep.Build.Base.Revision, rep.Build.Base.Dirty), revision(rep.Build.Head.Revision, rep.Build.Head.Dirty))
	if rep.Build.Error != "" {
		fmt.Fprintf(&b, "\n<details><summary>Build output</summary>\n\n<pre>%s</pre>\n</details>\n", preText(rep.Build.Error))
	}
	return b.String()
}

func revision(rev string, dirty bool) string {
	if rev == "" {
		return "(not a git checkout)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
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
	b.WriteString("| metric | base | head | Δ | confidence interval | p | outcome | could detect |\n|---|--:|--:|--:|--:|--:|---|--:|\n")
	for _, m := range rep.Metrics {
		c := metric.Of(m)
		outcome := m.Outcome
		if !m.Gates {
			outcome += " (reported only)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s (%s) | %s | %s %s | %s |\n",
			Text(m.Name), shown(c, c.Format(m.Base)), shown(c, c.Format(m.Head)), shown(c, c.FormatChange(m.Delta)),
			shown(c, c.FormatInterval(m.CI[0], m.CI[1])), metric.Percent(m.CILevel), metric.PValue(m.P),
			outcomeIcon[m.Outcome], Text(outcome), shown(c, detectable(m)))
	}
	if note := LatencyNote(rep); note != "" {
		fmt.Fprintf(&b, "\n_%s_\n", note)
	}
	return b.String()
}

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

func environmentSection(rep *report.Report) string {
	e := rep.Environment
	cfg := rep.Config
	return fmt.Sprintf("<sub>%d pairs × %s at %s req/s · cpu %s, memory %s, GOMAXPROCS %d · %s on %s (%d CPUs, kernel %s) · %s · alpha %s</sub>\n",
		cfg.Pairs, Text(cfg.Load.Duration.String()), Text(fmt.Sprint(cfg.Load.Rate)), Text(cfg.Resources.CPU.String()), Text(cfg.Resources.Memory.String()),
		e.GOMAXPROCS, Text(e.Confinement), Text(e.CPUModel), e.CPUs, Text(e.Kernel), Text(e.GoVersion), Text(fmt.Sprint(cfg.Gate.Alpha)))
}

func functionsSection(rep *report.Report) string {
	type key struct{ profile, unit string }
	groups := map[key][]report.Function{}
	var order []key
	for _, f := range rep.Functions {
		if f.Kind != "flat" {
			continue
		}
		k := key{f.Profile, f.Unit}
		if groups[k] == nil {
			order = append(order, k)
		}
		if len(groups[k]) < 5 {
			groups[k] = append(groups[k], f)
		}
	}
	if len(order) == 0 {
		return ""
	}
	sort.SliceStable(order, func(i, j int) bool { return profileRank(order[i].profile) < profileRank(order[j].profile) })
	var b strings.Builder
	b.WriteString("**Where it changed** (per request, or per run for what is alive at the window's end, head − base, beyond sampling noise)\n\n| profile | function | base | head | Δ |\n|---|---|--:|--:|--:|\n")
	for _, k := range order {
		for _, f := range groups[k] {
			status := ""
			if f.Status != "changed" {
				status = " (" + Text(f.Status) + ")"
			}
			fmt.Fprintf(&b, "| %s %s | %s%s | %s | %s | %s |\n", Text(f.Profile), Text(f.Unit), Code(f.Name), status, metric.Number(f.Base), metric.Number(f.Head), metric.Signed(f.Delta))
		}
	}
	return b.String()
}

func profileRank(p string) int {
	return strings.Index("cpu allocs mutex block goroutine heap", p)
}

func hintsSection(rep *report.Report) string {
	if len(rep.Hints) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**Hints**\n\n")
	for _, h := range rep.Hints {
		fmt.Fprintf(&b, "- **%s**: %s (%s)\n", Text(h.Rule), Prose(h.Message), Prose(h.Evidence))
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
		fmt.Fprintf(&b, "| %s | %s ± %s | %s ± %s | %s (%s) |\n", Text(r.Metric), metric.Number(r.Base), Text(r.BaseRange), metric.Number(r.Head), Text(r.HeadRange), Text(r.Delta), Text(r.Note))
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
	return fmt.Sprintf("<details><summary>%d invalid runs (never counted)</summary>\n\n%s\n%s\n\n</details>\n", len(rows), header, strings.Join(rows, "\n"))
}

func warningsSection(rep *report.Report) string {
	if len(rep.Warnings) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>%d warnings</summary>\n\n", len(rep.Warnings))
	for _, w := range rep.Warnings {
		fmt.Fprintf(&b, "- %s\n", Prose(w))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}
