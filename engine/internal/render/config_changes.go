package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// configChangesSection shows the thresholds the pull request changed in
// perfgate.yml and that the gate used the base's: a pull request that
// relaxes its own gate is visible in the comment, not only in a warning.
func configChangesSection(rep *report.Report) string {
	if len(rep.ConfigChanges) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**This pull request changes perfgate.yml's thresholds.** It was gated with the base's values; the change takes effect once it is merged.\n\n")
	b.WriteString("| key | base (used) | head |\n|---|---|---|\n")
	for _, c := range rep.ConfigChanges {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", Text(c.Key), Text(c.Base), Text(c.Head))
	}
	return b.String()
}
