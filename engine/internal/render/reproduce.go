package render

import (
	"fmt"
	"regexp"
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
// opens the diff of its profiles; "" unless the links name the run and
// the artifact.
func profilesSection(links Links) string {
	fetch := links.downloadCommand()
	if fetch == "" {
		return ""
	}
	dir := links.ArtifactName
	return fmt.Sprintf("<details><summary>Open this run's profiles</summary>\n\n<pre>%s\ngo tool pprof -http=: -diff_base %s/base.cpu.pb.gz %s/head.cpu.pb.gz\ngo tool pprof -http=: -diff_base %s/base.allocs.pb.gz %s/head.allocs.pb.gz\nbenchstat %s/bench/base.txt %s/bench/head.txt</pre>\n\n</details>\n",
		HTMLText(fetch), dir, dir, dir, dir, dir, dir)
}

// reproduceSection repeats a gate: the same config, base and run order.
func reproduceSection(rep *report.Report, r Reproduction) string {
	return fmt.Sprintf("<details><summary>Reproduce locally</summary>\n\n<pre>%ssudo perfgate gate --config %s --base %s --head . --out results/ --seed %d\ngo tool pprof -http=: -diff_base results/base.cpu.pb.gz results/head.cpu.pb.gz\ngo tool pprof -http=: -diff_base results/base.allocs.pb.gz results/head.allocs.pb.gz\nbenchstat results/bench/base.txt results/bench/head.txt</pre>\n\n</details>\n",
		r.checkout(), HTMLText(r.config()), HTMLText(r.base()), rep.Seed)
}

// recordingReproduceSection measures the same tree again and shows how to
// put two recordings (or a recording and a gate's head) side by side.
func recordingReproduceSection(r Reproduction) string {
	return fmt.Sprintf("<details><summary>Reproduce locally</summary>\n\n<pre>%ssudo perfgate run --config %s --src . --label %s --out results/\ngo tool pprof -http=: results/head.cpu.pb.gz\ngo tool pprof -http=: results/head.allocs.pb.gz\nbenchstat results/bench/head.txt</pre>\n\n"+
		"Against an earlier recording in <code>old/</code>: <code>benchstat old/bench/head.txt results/bench/head.txt</code> and <code>go tool pprof -diff_base old/head.cpu.pb.gz results/head.cpu.pb.gz</code>.\n\n</details>\n",
		r.checkout(), HTMLText(r.config()), HTMLText(r.label()))
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
