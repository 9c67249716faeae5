package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/trend"
)

// repositoryPattern is GitHub's owner/name: the only repository a link is
// built from.
var repositoryPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// confirmWith is what runs the confirming gates of `perfgate trend
// --confirm`: the checkout's real gates. Tests of the command's signal
// handling put a stand-in here, in a real perfgate process.
var confirmWith = func(c trend.Checkout) trend.Checker { return &c }

// trendCommand (`perfgate trend`) reads a config's nightly history, finds
// the steps of each metric's series, confirms new ones with paired gates
// (--confirm) and writes trend.json, summary.md, alarm.md and index.html.
func trendCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "perfgate.yml", "perfgate.yml of the service: names the history file and, with --confirm, is built at each commit")
	src := fs.String("src", ".", "the service's directory in a git checkout with the full history (for --confirm)")
	dir := fs.String("history", "", "the history directory (perfgate run --history)")
	out := fs.String("out", "trend", "output directory")
	confirm := fs.Bool("confirm", false, "confirm each new step with a paired gate of its commits, bisecting ranges of several commits")
	budget := fs.Int("budget", trend.DefaultBudget, "paired gates bisection may run per step beyond the confirming one")
	maxGates := fs.Int("max-gates", trend.DefaultMaxGates, "the most paired gates this run runs in all, confirming and bisecting every step (0: no limit); steps left over are confirmed by later runs")
	alpha := fs.Float64("alpha", trend.DefaultAlpha, "significance level of a step (permutation test)")
	minStep := fs.Float64("min-step", trend.DefaultMinMagnitude, "smallest step of a relative metric, a fraction (0.01 is 1%)")
	minSegment := fs.Int("min-segment", trend.DefaultMinSegment, "fewest entries on each side of a step")
	runID := fs.Int64("run-id", 0, "the CI run whose artifact holds this output, for the alarm's download command")
	artifact := fs.String("artifact-name", "", "the artifact holding this output, for the alarm's download command")
	repository := fs.String("repository", "", "owner/name on GitHub, to link commits")
	server := fs.String("server-url", "https://github.com", "the GitHub server, to link commits")
	settingsFrom := fs.String("settings-from", "", "a trend.json an earlier perfgate trend wrote: use its config name, detection settings and gate thresholds instead of --config's (no perfgate.yml is read; not with --confirm)")
	var target string
	targetFlag(fs, &target)
	if !parseFlags(fs, args, stderr) || !checkTarget("trend", target, stderr) {
		return exitConfig
	}
	refuse := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "perfgate trend: "+format+"\n", a...)
		return exitConfig
	}
	settings := trend.Settings{Alpha: *alpha, MinMagnitude: *minStep, MinSegment: *minSegment, Budget: *budget, MaxGates: *maxGates}
	switch {
	case *dir == "":
		return refuse("--history is missing; pass the directory perfgate run --history wrote")
	case settings.Problem() != "":
		return refuse("--%s", settings.Problem())
	case *runID < 0:
		return refuse("--run-id %d is not a run ID; pass the workflow run's numeric ID", *runID)
	case *artifact != "" && !history.IsArtifactName(*artifact):
		return refuse("--artifact-name %q is not an artifact name; use letters, digits, '.', '_' and '-'", *artifact)
	case *repository != "" && !repositoryPattern.MatchString(*repository):
		return refuse("--repository %q is not owner/name", *repository)
	case *settingsFrom != "" && *confirm:
		return refuse("--settings-from and --confirm exclude each other: confirming builds commits with their perfgate.yml; pass --config instead")
	}
	if *settingsFrom != "" {
		if clash := explicitFlags(fs, "config", "alpha", "min-step", "min-segment", "budget", "max-gates"); len(clash) > 0 {
			return refuse("--settings-from gives the config name and settings; drop --%s", strings.Join(clash, " and --"))
		}
	}
	if u, err := url.Parse(*server); err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" || u.RawQuery != "" {
		return refuse("--server-url %q is not an https:// server URL like https://github.com", *server)
	}
	configName := history.ConfigNameIn(*configPath, *src)
	if *settingsFrom != "" {
		var err error
		if configName, settings, err = trend.SettingsFrom(*settingsFrom); err != nil {
			return refuse("--settings-from: %v", err)
		}
	} else {
		cfg, err := config.Load(*configPath)
		if err != nil {
			fmt.Fprintf(stderr, "perfgate trend: %v\n", err)
			return exitConfig
		}
		settings.Gate = cfg.Gate
	}
	o := trend.Options{
		HistoryDir: *dir, Config: configName, Out: *out, Settings: settings, Stderr: stderr,
		Links: trend.Links{Server: *server, Repository: *repository, RunID: *runID, Artifact: *artifact},
	}
	if *confirm {
		o.Checkout = confirmWith(trend.Checkout{Src: *src, ConfigPath: *configPath, Target: target, Targets: targets, Stderr: stderr})
	}
	t, err := trend.Run(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate trend: %v\n", err)
		return exitInfra
	}
	fmt.Fprintf(stdout, "perfgate trend: %d entries, %d series, alarm %s%s\n", t.Entries, len(t.Series), t.Alarm.State, titleSuffix(t.Alarm.Title))
	for _, s := range t.Series {
		for _, st := range s.Steps {
			status := "not checked"
			if c := st.Confirmation; c != nil {
				status = c.Status
				if c.Status == "confirmed" {
					status += " at " + c.Commit
				}
			}
			change := metric.Signed(st.Magnitude)
			if m, ok := metric.Lookup(s.Metric); ok {
				change = m.FormatChange(st.Magnitude)
			}
			fmt.Fprintf(stdout, "  %s on %s: %s step (%s) after %s, p=%s: %s\n", s.Metric, s.MachineDescription, change, st.Direction, st.Before, metric.PValue(st.P), status)
		}
	}
	for _, w := range t.Warnings {
		fmt.Fprintf(stderr, "perfgate trend: warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, trend.TrendJSON))
	if ctx.Err() != nil {
		// The confirmations finished before the signal are kept (each was
		// saved as it was made); the steps after it are left unchecked.
		fmt.Fprintf(stderr, "perfgate trend: interrupted: the confirmations finished so far are in %s and the history; the next run confirms the rest\n", filepath.Join(*out, trend.RecordsJSONL))
		return exitInfra
	}
	return exitPass
}

func titleSuffix(title string) string {
	if title == "" {
		return ""
	}
	return ": " + title
}

// explicitFlags lists which of names were set on the command line.
func explicitFlags(fs *flag.FlagSet, names ...string) []string {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			set = append(set, f.Name)
		}
	})
	return set
}
