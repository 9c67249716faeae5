package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// planChanges are what a pull request that shrank its own plan changes
// (session's TestPullRequestThatShrinksItsPlanIsMeasuredWithTheBasesPlan
// records the same kinds of keys).
func planChanges() []report.ConfigChange {
	return []report.ConfigChange{
		{Key: "load.requests", Base: "GET /search?q=alpha, GET /search?q=beta, GET /, GET /healthz", Head: "GET /"},
		{Key: "pairs.min", Base: "14", Head: "4"},
		{Key: "pairs.max", Base: "28", Head: "4"},
		{Key: "gate.cpu", Base: "1.5%", Head: "50%"},
	}
}

// TestMarkdownShowsThePlanThePullRequestChanged renders the real
// regression run as its pull request sees it (with the run's links), as
// if the pull request had changed perfgate.yml's plan: one line on the
// first screen, the whole list folded below.
func TestMarkdownShowsThePlanThePullRequestChanged(t *testing.T) {
	rep := prRegression(t)
	if md := Markdown(rep); strings.Contains(md, "perfgate.yml plan") || strings.Contains(md, "is new in this pull request") {
		t.Fatal("a report without config changes shows them")
	}
	rep.ConfigChanges = planChanges()
	md := MarkdownFor(rep, ReproductionOf(rep), ciLinks())
	golden(t, "config-changes.md", md)
	firstScreen, _, _ := strings.Cut(md, "<details>")
	line := "**Measured with the base's perfgate.yml plan**; this pull request changes load.requests, pairs.min, +2 more."
	if !strings.Contains(firstScreen, line+"\n") {
		t.Errorf("the first screen lacks\n%s\n%s", line, firstScreen)
	}
	if i := strings.Index(md, "| gating metric |"); i < 0 || strings.Index(md, line) > i {
		t.Error("the plan's line must come before the metrics")
	}
	if firstScreenLines(line) != 1 {
		t.Errorf("the plan's line takes %d rendered lines, want 1", firstScreenLines(line))
	}
	for _, row := range []string{"| pairs.min | 14 | 4 |", "| gate.cpu | 1.5% | 50% |", "| load.requests | GET /search?q=alpha, GET /search?q=beta, GET /, GET /healthz | GET / |"} {
		if !strings.Contains(md, row) {
			t.Errorf("the fold lacks %q", row)
		}
	}
	for _, d := range commentDisagreements(rep, md) {
		t.Error(d)
	}
}

// Short changes are all named on the line; none is left to "+N more".
func TestPlanNoticeNamesShortChangesWhole(t *testing.T) {
	rep := &report.Report{ConfigChanges: []report.ConfigChange{{Key: "pairs.min", Base: "20", Head: "4"}, {Key: "experiment", Base: "duet", Head: "sequential"}}}
	want := "**Measured with the base's perfgate.yml plan**; this pull request changes pairs.min 20 → 4, experiment.\n"
	if got := planNotice(rep); got != want {
		t.Errorf("planNotice =\n%s\nwant\n%s", got, want)
	}
}

// A perfgate.yml the base does not have was measured as the pull request
// wrote it, and the first screen says so.
func TestMarkdownSaysANewPerfgateYmlWasMeasuredAsItIs(t *testing.T) {
	rep := realReport(t, "regression")
	rep.ThresholdsFrom = report.ThresholdsFromHead
	md := Markdown(rep)
	firstScreen, _, _ := strings.Cut(md, "<details>")
	if !strings.Contains(firstScreen, "**perfgate.yml is new in this pull request**: it was measured with its own plan and thresholds") {
		t.Errorf("the first screen does not say perfgate.yml is new:\n%s", firstScreen)
	}
	if strings.Contains(md, "base branch's perfgate.yml") {
		t.Error("with head's own plan, the comment must not send the reader to the base branch's perfgate.yml")
	}
}

// Keys and values of config_changes come from the pull request: on the
// first screen and in the fold they show as text, never as markup.
func TestHostileConfigChangesShowAsText(t *testing.T) {
	rep := realReport(t, "regression")
	hostile := "<script>x</script> @octocat #1 [x](http://evil.example) **b**\n## h | cell"
	rep.ConfigChanges = []report.ConfigChange{
		{Key: "gate.cpu", Base: "1.5%", Head: hostile},
		{Key: hostile, Base: "`code`", Head: "|"},
		{Key: "load.requests", Base: "GET /", Head: strings.Repeat("GET /x, ", 200)},
	}
	md := Markdown(rep)
	requireSafe(t, md, nil, "<script>x</script> @octocat #1 [x](http://evil.example) **b** ## h | cell")
	firstScreen, _, _ := strings.Cut(md, "<details>")
	line := firstScreen[strings.Index(firstScreen, "**Measured with the base's perfgate.yml plan**"):]
	line, _, _ = strings.Cut(line, "\n")
	if n := firstScreenLines(line); n > 1 {
		t.Errorf("hostile values make the plan's line %d rendered lines", n)
	}
	if strings.Contains(md, strings.Repeat("GET /x, ", 30)) {
		t.Error("a long value was not cut")
	}
}
