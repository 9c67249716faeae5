package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// planLineWidth is the most characters the first screen's line about
// perfgate.yml's plan shows: one rendered line of a comment (see
// firstScreenLines), so that it costs the first screen a single line.
const planLineWidth = 110

// planValueWidth is the most characters of one value the line shows; the
// fold below has them whole (up to maxText).
const planValueWidth = 20

// planNotice is the first screen's line about perfgate.yml's plan. When
// the pull request changed it, the gate still measured the base's plan
// (report.json's config_changes): the line names what changed, as many
// keys with their values as fit and a count of the rest, and
// configChangesSection folds the whole list further down. When the base
// revision has no perfgate.yml, the pull request's new file was measured
// as it is, and the line says that instead. Keys and values come from the
// pull request and are escaped.
func planNotice(rep *report.Report) string {
	if len(rep.ConfigChanges) == 0 {
		if rep.ThresholdsFrom == report.ThresholdsFromHead {
			return "**perfgate.yml is new in this pull request**: it was measured with its own plan and thresholds, as the base has none.\n"
		}
		return ""
	}
	const prefix, suffix = "**Measured with the base's perfgate.yml plan**; this pull request changes ", "."
	room := planLineWidth - utf8.RuneCountInString(prefix+suffix)
	var shown []string
	used := 0
	for i, c := range rep.ConfigChanges {
		// Room is kept for the ", +N more" of the changes after this one.
		after := ""
		if rest := len(rep.ConfigChanges) - i - 1; rest > 0 {
			after = fmt.Sprintf(", +%d more", rest)
		}
		key := cutTo(c.Key, planValueWidth)
		full := fmt.Sprintf("%s %s → %s", key, cutTo(c.Base, planValueWidth), cutTo(c.Head, planValueWidth))
		sep := 0
		if len(shown) > 0 {
			sep = len(", ")
		}
		var item string
		for _, s := range []string{full, key} {
			if used+sep+utf8.RuneCountInString(s+after) <= room {
				item = s
				break
			}
		}
		if item == "" {
			shown = append(escaped(shown), fmt.Sprintf("+%d more", len(rep.ConfigChanges)-i))
			return prefix + strings.Join(shown, ", ") + suffix + "\n"
		}
		shown = append(shown, item)
		used += sep + utf8.RuneCountInString(item)
	}
	return prefix + strings.Join(escaped(shown), ", ") + suffix + "\n"
}

// cutTo is s as visible runes (see visible), cut to limit with "…".
func cutTo(s string, limit int) string {
	rs, cut := visible(s, limit)
	if cut {
		return string(rs) + "…"
	}
	return string(rs)
}

// escaped is each of ss through Text.
func escaped(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Text(s)
	}
	return out
}

// configChangesSection folds the whole list of the plan keys the pull
// request changed in perfgate.yml, with the base's value (the one used)
// and head's.
func configChangesSection(rep *report.Report) string {
	if len(rep.ConfigChanges) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>perfgate.yml's plan: %s changed in this pull request, applied once it merges</summary>\n\n", count(len(rep.ConfigChanges), "key"))
	b.WriteString("The base revision's perfgate.yml decides what is measured and how it is judged (docs/config.md), so a pull request does not relax its own gate: this one was measured with the base's values.\n\n")
	b.WriteString("| key | base (used) | head |\n|---|---|---|\n")
	for _, c := range rep.ConfigChanges {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", Text(c.Key), Text(c.Base), Text(c.Head))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}
