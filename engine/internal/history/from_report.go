package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Meta is what a history entry needs beyond report.json.
type Meta struct {
	Config string
	// Commit is used when the build recorded no revision (the tree was
	// not a git checkout).
	Commit string
	// RunnerImage names the CI runner's image (GitHub: ImageOS and
	// ImageVersion), "" elsewhere.
	RunnerImage string
	Artifact    *Artifact
}

// FromReport is the history entry of a recording (`perfgate run`): per
// catalog metric, the median, range and MAD over the compared runs.
func FromReport(rep *report.Report, meta Meta) (Entry, error) {
	if !rep.Recording() {
		return Entry{}, fmt.Errorf("report.json is a %s, not a recording: only perfgate run's results go into the history", modeName(rep.Mode))
	}
	commit := rep.Build.Head.Revision
	if commit == "" {
		commit = meta.Commit
	}
	if commit == "" {
		return Entry{}, fmt.Errorf("the measured tree is not a git checkout, so its commit is unknown; pass it with --commit")
	}
	e := Entry{
		Schema: Schema, Kind: KindEntry, ID: commit + "@" + rep.Started.UTC().Format(time.RFC3339),
		Config: meta.Config, Commit: commit, Label: rep.Label, Time: rep.Started.UTC(), Engine: rep.Environment.Engine,
		Verdict: rep.Verdict, Fingerprint: FingerprintOf(rep.Environment, meta.RunnerImage), Metrics: map[string]Summary{},
		Artifact: meta.Artifact,
	}
	for _, r := range rep.Runs {
		// The recorded tree's runs: a paired recording's base runs are the
		// other commit's.
		if r.Compared() && metric.SideOf(r) == metric.Head {
			e.Runs++
		}
	}
	for _, m := range metric.Catalog {
		if vs := m.Values(rep.Runs, metric.Head); len(vs) > 0 {
			e.Metrics[m.Name] = summarize(m.Unit, vs)
		}
	}
	if rep.PairedRecording() {
		e.Paired = pairedOf(rep)
	}
	return e, nil
}

// pairedOf is a paired recording's estimates and its largest CPU and
// allocation function changes.
func pairedOf(rep *report.Report) *Paired {
	p := &Paired{With: rep.PairedWith, Experiment: rep.Experiment, Metrics: map[string]PairedEstimate{}}
	for _, est := range rep.Paired {
		p.Metrics[est.Name] = PairedEstimate{Estimate: est.Estimate, CI: est.CI, Level: est.Level, Pairs: est.Pairs}
	}
	p.Functions = append(TopFunctions(rep, metric.CPU, maxPairedFunctions), TopFunctions(rep, metric.Allocs, maxPairedFunctions)...)
	return p
}

// maxPairedFunctions is how many functions of each profile a paired entry
// keeps: the alarm names five.
const maxPairedFunctions = 5

func modeName(mode string) string {
	if mode == "" {
		return report.ModeGate
	}
	return mode
}

// FingerprintOf is the fingerprint of where a report was measured.
func FingerprintOf(env report.Environment, runnerImage string) Fingerprint {
	f := Fingerprint{
		CPUModel: env.CPUModel, CPUs: env.CPUs, Arch: env.Arch, Target: env.Target, Confinement: env.Confinement,
		CPUMillicores: env.Limits.CPUMillicores, MemoryBytes: env.Limits.MemoryBytes,
		Kernel: env.Kernel, OS: env.OS, GoVersion: env.GoVersion, RunnerImage: runnerImage,
	}
	f.Machine = MachineKey(f)
	return f
}

// MachineKey is a short hash of the fingerprint's machine fields: entries
// with the same key have comparable CPU and latency figures.
func MachineKey(f Fingerprint) string {
	h := sha256.New()
	for _, field := range []string{f.CPUModel, strconv.Itoa(f.CPUs), f.Arch, f.Target, f.Confinement,
		strconv.FormatInt(f.CPUMillicores, 10), strconv.FormatInt(f.MemoryBytes, 10)} {
		h.Write([]byte(field))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// summarize is the median, range and median absolute deviation of vs.
func summarize(unit string, vs []float64) Summary {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	med := stats.Median(s)
	dev := make([]float64, len(s))
	for i, v := range s {
		dev[i] = abs(v - med)
	}
	return Summary{Unit: unit, Median: med, Low: s[0], High: s[len(s)-1], MAD: stats.Median(dev), N: len(s)}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
