package trend

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/render"
)

// Marker is the first line of alarm.md: the Action finds the config's
// sticky issue by it.
func Marker(config string) string { return "<!-- perfgate-trend: " + config + " -->" }

// alarmOf decides the sticky issue's state from every confirmation the
// history holds: a confirmed regression stays open until a later
// confirmed improvement of the same metric on the same machine reverses
// it. Suspected, unconfirmed steps never raise it.
func alarmOf(config string, confirmations []history.Confirmation) Alarm {
	cs := append([]history.Confirmation(nil), confirmations...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Time.Before(cs[j].Time) })
	open := map[string][]history.Confirmation{}
	var keys []string
	ever := false
	for _, c := range cs {
		if c.Status != history.Confirmed {
			continue
		}
		key := c.Metric + "|" + c.Machine
		if _, seen := open[key]; !seen {
			keys = append(keys, key)
		}
		switch c.Outcome {
		case "regression":
			ever = true
			open[key] = append(open[key], c)
		case "improvement":
			open[key] = nil
		}
	}
	a := Alarm{State: AlarmNone}
	for _, k := range keys {
		a.Open = append(a.Open, open[k]...)
	}
	switch {
	case len(a.Open) == 1:
		c := a.Open[0]
		a.State = AlarmOpen
		a.Title = fmt.Sprintf("perfgate: %s regressed %s at %s (%s)", c.Metric, changeOf(c.Metric, c.Estimate), short(c.Commit), config)
	case len(a.Open) > 1:
		a.State = AlarmOpen
		a.Title = fmt.Sprintf("perfgate: %d confirmed regressions on main (%s)", len(a.Open), config)
	case ever:
		a.State = AlarmResolved
		a.Title = fmt.Sprintf("perfgate: confirmed regressions reversed (%s)", config)
	}
	return a
}

// changeOf formats a confirming gate's estimate in the metric's terms.
func changeOf(name string, v float64) string {
	if m, ok := metric.Lookup(name); ok {
		return m.FormatChange(v)
	}
	return metric.Signed(v)
}

// Links are how alarm.md points at where the confirming gates' files are.
// Every field is validated before it reaches here (see the command).
type Links struct {
	// Repository is owner/name and Server e.g. https://github.com: commits
	// link to their page when both are set.
	Server, Repository string
	// RunID and Artifact name the workflow run and the artifact holding
	// the trend output, for `gh run download`.
	RunID    int64
	Artifact string
}

// pageLine says where the trend page (index.html: a chart per series) is:
// in the trend artifact of the run, linked when the run is known.
func pageLine(links Links) string {
	switch {
	case links.RunID > 0 && links.Artifact != "" && links.Server != "" && links.Repository != "":
		return fmt.Sprintf("Charts of every series: `%s` in the artifact `%s` of [run %d](%s/%s/actions/runs/%d) (`gh run download %d -n %s`).",
			IndexHTML, links.Artifact, links.RunID, links.Server, links.Repository, links.RunID, links.RunID, links.Artifact)
	case links.RunID > 0 && links.Artifact != "":
		return fmt.Sprintf("Charts of every series: `%s` in the artifact `%s` of run %d (`gh run download %d -n %s`).", IndexHTML, links.Artifact, links.RunID, links.RunID, links.Artifact)
	}
	return fmt.Sprintf("Charts of every series: `%s` beside this file in the trend output.", IndexHTML)
}

// alarmMarkdown is the sticky issue's body: each open regression with its
// commit, the numbers, the functions that changed and the commands that
// open the confirming gate's profiles. Every text from a profile or a
// commit message is escaped.
func alarmMarkdown(config string, a Alarm, series []Series, links Links) string {
	var b strings.Builder
	fmt.Fprintln(&b, Marker(config))
	switch a.State {
	case AlarmNone:
		fmt.Fprintf(&b, "### perfgate: no confirmed regression on main (%s)\n", render.Text(config))
		return b.String()
	case AlarmResolved:
		fmt.Fprintf(&b, "### perfgate: every confirmed regression was reversed (%s)\n", render.Text(config))
		return b.String()
	}
	fmt.Fprintf(&b, "### perfgate: confirmed regression on main (%s)\n\n", render.Text(config))
	fmt.Fprintln(&b, "The nightly trend found a step, and the commits on both sides measured at the same time confirmed it (a paired night, or paired gates run side by side in one job).")
	fmt.Fprintln(&b, pageLine(links))
	for _, c := range a.Open {
		writeConfirmation(&b, c, series, links)
	}
	return b.String()
}

func writeConfirmation(b *strings.Builder, c history.Confirmation, series []Series, links Links) {
	m, _ := metric.Lookup(c.Metric)
	fmt.Fprintf(b, "\n#### %s: %s at %s\n\n", render.Text(c.Metric), changeOf(c.Metric, c.Estimate), commitRef(c.Commit, links))
	st, s := stepOf(c, series)
	switch {
	case st != nil && st.Paired != nil:
		p := st.Paired
		fmt.Fprintf(b, "- Paired night: %s measured at the same time as %s, on the same CPUs: %s (%.1f%% interval %s to %s, %d rounds).\n",
			commitRef(c.After, links), commitRef(c.Before, links), changeOf(c.Metric, p.Estimate), 100*p.Level, changeOf(c.Metric, p.CI[0]), changeOf(c.Metric, p.CI[1]), p.Pairs)
	case st != nil && m != nil:
		fmt.Fprintf(b, "- Nightly medians on %s: %s → %s (%s, p=%s).\n", render.Text(s.MachineDescription),
			m.Format(st.BeforeLevel), m.Format(st.AfterLevel), changeOf(c.Metric, st.Magnitude), metric.PValue(st.P))
	}
	if c.Gates > 0 {
		fmt.Fprintf(b, "- Paired gate: %s (%.0f%% CI %s to %s), %s; %d gate(s) between %s and %s.\n",
			changeOf(c.Metric, c.Estimate), 100*c.CILevel, changeOf(c.Metric, c.CI[0]), changeOf(c.Metric, c.CI[1]), render.Text(c.Outcome), c.Gates, commitRef(c.Before, links), commitRef(c.After, links))
	}
	if len(c.Narrowed) > 0 {
		refs := make([]string, len(c.Narrowed))
		for i, n := range c.Narrowed {
			refs[i] = commitRef(n, links)
		}
		fmt.Fprintf(b, "- Narrowed to %d commits: %s (%s).\n", len(c.Narrowed), strings.Join(refs, ", "), render.Prose(c.Reason))
	}
	if len(c.Functions) > 0 {
		fmt.Fprintln(b, "\n| function | change per request |\n|---|---:|")
		for _, f := range c.Functions {
			fmt.Fprintf(b, "| %s | %s %s |\n", render.Code(f.Name), metric.Signed(f.Delta), render.Text(f.Unit))
		}
	}
	if c.Results == "" && st != nil && st.Paired != nil {
		writeNightProfiles(b, s.Points[st.Index].Artifact, c)
	}
	if c.Results != "" {
		fmt.Fprintln(b, "\nOpen the confirming gate's profiles:\n\n```sh")
		if links.RunID > 0 && links.Artifact != "" {
			fmt.Fprintf(b, "gh run download %d -n %s -D trend\n", links.RunID, links.Artifact)
		}
		profile := "cpu"
		if len(c.Functions) > 0 {
			profile = c.Functions[0].Profile
		}
		dir := "trend/" + c.Results
		fmt.Fprintf(b, "go tool pprof -http=: -diff_base %s/base.%s.pb.gz %s/head.%s.pb.gz\n```\n", dir, profile, dir, profile)
	}
}

// writeNightProfiles says how to open the profiles of the paired night
// that confirmed a step: its recording's artifact holds both commits'.
// The artifact's name and run come from a validated history entry.
func writeNightProfiles(b *strings.Builder, a *history.Artifact, c history.Confirmation) {
	if a == nil || a.RunID <= 0 || !history.IsArtifactName(a.Name) {
		return
	}
	profile := "cpu"
	if len(c.Functions) > 0 {
		profile = c.Functions[0].Profile
	}
	fmt.Fprintf(b, "\nOpen that night's profiles (base is %s):\n\n```sh\ngh run download %d -n %s -D night\n", short(c.Before), a.RunID, a.Name)
	fmt.Fprintf(b, "go tool pprof -http=: -diff_base night/base.%s.pb.gz night/head.%s.pb.gz\n```\n", profile, profile)
}

// stepOf is the series step a confirmation is about, when still in view.
func stepOf(c history.Confirmation, series []Series) (*Step, *Series) {
	for i := range series {
		for j := range series[i].Steps {
			st := &series[i].Steps[j]
			if st.Confirmation != nil && st.Confirmation.ID == c.ID {
				return st, &series[i]
			}
		}
	}
	return nil, nil
}

// commitRef is a commit's short SHA, linked to its page when the
// repository is known. SHAs come from git (hexadecimal; checked again).
func commitRef(commit string, links Links) string {
	if !isHex(commit) {
		return render.Code(commit)
	}
	if links.Server != "" && links.Repository != "" {
		return fmt.Sprintf("[`%s`](%s/%s/commit/%s)", short(commit), links.Server, links.Repository, commit)
	}
	return "`" + short(commit) + "`"
}

func isHex(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
