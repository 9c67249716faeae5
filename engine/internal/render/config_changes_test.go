package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestMarkdownShowsThresholdsThePullRequestChanged(t *testing.T) {
	rep := regressionReport()
	if md := Markdown(rep); strings.Contains(md, "changes perfgate.yml's thresholds") {
		t.Fatal("a report without config changes shows the section")
	}
	rep.ConfigChanges = []report.ConfigChange{
		{Key: "gate.cpu", Base: "1.5%", Head: "50%"},
		{Key: "validity.min_rate", Base: "99%", Head: "<script>x</script> @octocat | cell"},
	}
	md := Markdown(rep)
	section := md[strings.Index(md, "**This pull request changes perfgate.yml's thresholds.**"):]
	if i := strings.Index(md, "| metric |"); i < 0 || strings.Index(md, "changes perfgate.yml's thresholds") > i {
		t.Errorf("the config changes are not shown before the metrics:\n%s", md)
	}
	if !strings.Contains(section, `| gate.cpu | 1.5% | 50% |`) {
		t.Errorf("section does not show gate.cpu's base and head values:\n%s", section)
	}
	requireSafe(t, section, nil, "<script>x</script> @octocat | cell")
}
