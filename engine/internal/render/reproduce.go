package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Reproduction holds the values the "Reproduce locally" command is built
// from. The command is one a reader pastes into a shell, so a value shows
// only when it matches a pattern that cannot carry shell syntax or an
// option; anything else shows as a placeholder such as <config>.
type Reproduction struct {
	// Config is perfgate.yml's path, relative to where the command runs.
	Config string
	// Base is a gate's base revision.
	Base string
	// Head is the commit that was measured; when known, the command
	// starts by checking it out.
	Head string
	// Label is a recording's label.
	Label string
}

var (
	safePath     = regexp.MustCompile(`^[A-Za-z0-9._/-]{1,200}$`)
	safeRevision = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
)

// ReproductionOf takes the values from the report itself: the config of
// its recorded command line, its base revision and its label. Only a
// report perfgate wrote on this machine should be rendered with them; a
// copy from elsewhere (the Action's fork-safe mode) is rendered with
// values its reader trusts, see MarkdownWithReproduction.
func ReproductionOf(rep *report.Report) Reproduction {
	return Reproduction{Config: flagValue(rep.Command, "--config", "perfgate.yml"), Base: rep.Build.Base.Revision, Label: rep.Label}
}

// config, base, head and label are the values fit for the command line,
// else a placeholder ("" for head: no checkout line).
func (r Reproduction) config() string {
	if !safeRelativePath(r.Config) {
		return "<config>"
	}
	return r.Config
}

// safeRelativePath is a path a command line or a link may carry: plain
// characters, relative, not an option, never climbing out of where it
// starts.
func safeRelativePath(p string) bool {
	return safePath.MatchString(p) && !strings.HasPrefix(p, "-") && !strings.HasPrefix(p, "/") &&
		!strings.Contains("/"+p+"/", "/../")
}

func (r Reproduction) base() string { return orPlaceholder(safeRevision, r.Base, "<base>") }

func (r Reproduction) label() string {
	if strings.HasPrefix(r.Label, "-") {
		return "<label>"
	}
	return orPlaceholder(config.LabelPattern, r.Label, "<label>")
}

func (r Reproduction) checkout() string {
	if !safeRevision.MatchString(r.Head) {
		return ""
	}
	return "git checkout " + r.Head + "\n"
}

func orPlaceholder(pattern *regexp.Regexp, value, placeholder string) string {
	if pattern.MatchString(value) {
		return value
	}
	return placeholder
}

// profilesSection fetches this run's results with GitHub's CLI and
// opens the diff of the profiles that explain what changed; "" unless the
// links name the run and the artifact.
func profilesSection(rep *report.Report, links Links) string {
	fetch := links.downloadCommand()
	if fetch == "" {
		return ""
	}
	return fmt.Sprintf("<details><summary>Open this run's profiles</summary>\n\n<pre>%s\n%s</pre>\n\n</details>\n",
		HTMLText(fetch), diffCommands(rep, links.ArtifactName))
}

// profileOfChange says which profile explains a gating metric's change.
var profileOfChange = map[string]string{
	"cpu": "cpu", "allocs": "allocs", "bytes": "allocs", "heap": "heap", "goroutines": "goroutine",
	"latency_p50": "cpu", "latency_p90": "cpu", "latency_p99": "cpu",
}

// diffCommands are the pprof diffs of the profiles behind the metrics that
// regressed (or improved), cpu and allocs when nothing did, and benchstat,
// on the results in dir.
func diffCommands(rep *report.Report, dir string) string {
	var profiles []string
	for _, outcome := range []string{report.Regression, report.Improvement} {
		for _, m := range outcomeMetrics(rep, outcome) {
			if p, ok := profileOfChange[m.Name]; ok && !slices.Contains(profiles, p) && slices.Contains(rep.Config.Profiles, p) {
				profiles = append(profiles, p)
			}
		}
	}
	if len(profiles) == 0 {
		profiles = []string{"cpu", "allocs"}
	}
	var b strings.Builder
	for _, p := range profiles {
		fmt.Fprintf(&b, "go tool pprof -http=: -diff_base %s/base.%s.pb.gz %s/head.%s.pb.gz\n", dir, p, dir, p)
	}
	fmt.Fprintf(&b, "benchstat %s/bench/base.txt %s/bench/head.txt", dir, dir)
	return b.String()
}

// installLine installs the perfgate command for the reproduce blocks.
const installLine = "go install github.com/perfgate/perfgate/engine/cmd/perfgate@latest"

// confinedNote introduces the confined command: root, for the cgroup
// limits, runs what perfgate.yml names (a build command, a reset), so
// the reader should know that file first.
const confinedNote = "# as the check measured it, under the CPU and memory limits (root, for the cgroup). Read perfgate.yml first: it names the commands perfgate runs."

// gateConfinedNote is confinedNote for a gate, whose perfgate.yml is the
// pull request's: its author chose what the sudo line builds, runs and
// connects to, so the reader reads that file before giving it root.
const gateConfinedNote = "# as the check measured it, under the CPU and memory limits (root, for the cgroup). Read the pull request's perfgate.yml before running this line: its author chose the commands, images and cluster perfgate uses, and sudo runs perfgate as root."

// reproduceSection repeats a gate: the same config, base and run order,
// first without root (no CPU or memory limit, so the numbers differ from
// the check's), then confined as the check ran it; sudo keeps PATH so
// that root finds perfgate and Go where the reader installed them.
func reproduceSection(rep *report.Report, r Reproduction) string {
	gate := fmt.Sprintf("perfgate gate --config %s --base %s --head . --out results/ --seed %d", HTMLText(r.config()), HTMLText(r.base()), rep.Seed)
	return fmt.Sprintf("<details><summary>Reproduce locally</summary>\n\n<pre>%s\n%s%s   # unconfined: no CPU or memory limit\n%s\nsudo env \"PATH=$PATH\" %s\n%s</pre>\n\n</details>\n",
		installLine, r.checkout(), gate, gateConfinedNote, gate, diffCommands(rep, "results"))
}

// recordingReproduceSection measures the same tree again and shows how to
// put two recordings (or a recording and a gate's head) side by side.
func recordingReproduceSection(r Reproduction) string {
	run := fmt.Sprintf("perfgate run --config %s --src . --label %s --out results/", HTMLText(r.config()), HTMLText(r.label()))
	return fmt.Sprintf("<details><summary>Reproduce locally</summary>\n\n<pre>%s\n%s%s   # unconfined: no CPU or memory limit\n%s\nsudo env \"PATH=$PATH\" %s\ngo tool pprof -http=: results/head.cpu.pb.gz\ngo tool pprof -http=: results/head.allocs.pb.gz\nbenchstat results/bench/head.txt</pre>\n\n"+
		"Against an earlier recording in `old/`: `benchstat old/bench/head.txt results/bench/head.txt` and `go tool pprof -diff_base old/head.cpu.pb.gz results/head.cpu.pb.gz`.\n\n</details>\n",
		installLine, r.checkout(), run, confinedNote, run)
}

// flagValue is the value of a flag in the recorded command line.
func flagValue(command []string, flag, fallback string) string {
	for i, arg := range command {
		if arg == flag && i+1 < len(command) {
			return command[i+1]
		}
		if v, ok := strings.CutPrefix(arg, flag+"="); ok {
			return v
		}
	}
	return fallback
}
