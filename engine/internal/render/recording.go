package render

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// recordingSections are the comment of a recording (perfgate run): one
// tree measured alone, so instead of a comparison it shows the measured
// side's medians, and how to compare it with a later recording or gate.
func recordingSections(rep *report.Report, r Reproduction) []section {
	return []section{
		{name: "verdict", text: recordedSection(rep)},
		{name: "paired", text: pairedSection(rep), optional: true, priority: 9},
		{name: "medians", text: mediansSection(rep), optional: true, priority: 9},
		{name: "environment", text: recordingEnvironmentSection(rep), optional: true, priority: 5},
		{name: "hints", text: hintsSection(rep), optional: true, priority: 8},
		{name: "invalid runs", text: recordingInvalidSection(rep), optional: true, priority: 4},
		{name: "warnings", text: warningsSection(rep), optional: true, priority: 3},
		{name: "reproduce", text: recordingReproduceSection(r), optional: true, priority: 7},
	}
}

// recordedSection is the title, the reason and the revision measured. A
// failed recording says so in its title: it recorded nothing usable.
func recordedSection(rep *report.Report) string {
	var b strings.Builder
	if rep.Verdict == report.Pass {
		fmt.Fprintf(&b, "### %s perfgate: recorded %s\n\n", verdictIcon[rep.Verdict], Text(rep.Label))
	} else {
		fmt.Fprintf(&b, "### %s perfgate: recording %s: %s\n\n", verdictIcon[rep.Verdict], Text(rep.Label), Text(rep.Verdict))
	}
	fmt.Fprintf(&b, "%s\n\n", Prose(rep.Reason))
	fmt.Fprintf(&b, "revision %s\n", revision(rep.Build.Head.Revision, rep.Build.Head.Dirty))
	if rep.Build.Error != "" {
		fmt.Fprintf(&b, "\n<details><summary>Build output</summary>\n\n<pre>%s</pre>\n</details>\n", preText(rep.Build.Error))
	}
	return b.String()
}

// mediansSection is the measured side's median of each figure over its
// valid runs (the runs carry side head).
func mediansSection(rep *report.Report) string {
	var rows []string
	for _, md := range rep.Summary {
		if md.HeadRuns > 0 {
			c := metric.OfMedian(md)
			rows = append(rows, fmt.Sprintf("| %s | %s | %d |", UpperFirst(titleOfName(md.Name)), shown(c, c.Format(md.Head)), md.HeadRuns))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return "| metric | median | valid runs |\n|---|--:|--:|\n" + strings.Join(rows, "\n") + "\n"
}

func recordingEnvironmentSection(rep *report.Report) string {
	e := rep.Environment
	cfg := rep.Config
	return fmt.Sprintf("<sub>%d runs × %s at %s req/s · cpu %s, memory %s, GOMAXPROCS %d · %s on %s (%d CPUs, kernel %s) · %s</sub>\n",
		cfg.Pairs, Text(cfg.Load.Duration.String()), Text(fmt.Sprint(cfg.Load.Rate)), Text(cfg.Resources.CPU.String()), Text(cfg.Resources.Memory.String()),
		e.GOMAXPROCS, Text(e.Confinement), Text(e.CPUModel), e.CPUs, Text(e.Kernel), Text(e.GoVersion))
}

func recordingInvalidSection(rep *report.Report) string {
	return invalidRunsTable(rep, "| run | reason |\n|--:|---|", func(r report.Run) string {
		return fmt.Sprintf("| %d | %s |", r.Pair, Text(strings.Join(r.InvalidReasons, "; ")))
	})
}
