package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/reset"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// invocation is one perfgate gate, run or compare: where its results go
// and the report it builds. The steps below are shared, so a recording is
// built, measured, recorded and concluded exactly as a gate is.
type invocation struct {
	out            string
	stdout, stderr io.Writer
	cfg            *config.Config
	rep            *report.Report
	// mainHistory is main's nightly history (gate --history), read
	// before measuring; nil without one.
	mainHistory     *history.File
	mainHistoryName string
	// logFormat is LogPlain or LogGitHub (log groups).
	logFormat string
	// sources are the trees built, by side: the experiment relinks them
	// with a layout per round.
	sources map[string]string
	// targets makes the configured target (loadConfig checked it has it).
	targets Targets
}

// newInvocation starts a report in mode (report.ModeGate or ModeRecord)
// whose verdict stays error until the experiment concludes, so a perfgate
// killed on the way leaves a report that says so.
func newInvocation(mode string, cfg *config.Config, out string, command []string, stdout, stderr io.Writer) *invocation {
	return &invocation{out: out, stdout: stdout, stderr: stderr, cfg: cfg, rep: &report.Report{
		Schema: report.Schema, Verdict: report.Error, Reason: "running", Mode: mode, Command: command,
		Started: time.Now(), Config: cfg.Report(), Runs: []report.Run{}, Metrics: []report.Metric{},
		Functions: []report.Function{}, Hints: []report.Hint{}, Warnings: []string{},
	}}
}

// loadConfig reads perfgate.yml and applies --target, refusing the targets
// this version cannot run before anything is built.
func loadConfig(path, targetOverride string, targets Targets) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if targetOverride != "" {
		cfg.Target = targetOverride
	}
	if err := checkRunnable(path, cfg, targets); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkRunnable refuses a configuration this perfgate cannot run here: a
// target it does not have, service settings the target cannot honour, and
// service.env_from naming variables that are not set. Gate checks again
// once the base revision's plan (which may bring another target) is in.
func checkRunnable(path string, cfg *config.Config, targets Targets) error {
	if _, ok := targets[cfg.Target]; !ok {
		return configErrorf("%s: target: %q is not available in this version of perfgate; use target: %s", path, cfg.Target, strings.Join(config.Targets, ", "))
	}
	if problem := config.ResetTargetProblem(cfg.Target); problem != "" && len(cfg.Service.Reset) > 0 {
		return configErrorf("%s: service.reset %s; gate with --target %s, or without service.reset", path, problem, strings.Join(config.ResetTargets, " or --target "))
	}
	if problem := config.PprofListenerTargetProblem(cfg.Target); problem != "" && cfg.SeparatePprof() {
		return configErrorf("%s: service.args or service.env %s; gate with --target %s", path, problem, strings.Join(config.PprofListenerTargets, " or --target "))
	}
	if problem := config.EnvFromTargetProblem(cfg.Target); problem != "" && len(cfg.Service.EnvFrom) > 0 {
		return configErrorf("%s: service.env_from %s; gate with --target %s", path, problem, strings.Join(config.EnvFromTargets, " or --target "))
	}
	if problem := config.CgoTargetProblem(cfg.Target); problem != "" && cfg.Service.Build.CGO {
		return configErrorf("%s: service.build.cgo %s; gate with --target %s, or build a static binary (cgo: false)", path, problem, strings.Join(config.CgoTargets, " or --target "))
	}
	if err := cfg.CheckEnvFrom(path); err != nil {
		return &ConfigError{Err: err}
	}
	return nil
}

// begin writes the first report.json and records the host and toolchain.
func (g *invocation) begin(ctx context.Context) error {
	if err := g.save(); err != nil {
		return err
	}
	goVersion, err := build.GoVersion(ctx)
	if err != nil {
		return err
	}
	g.rep.Environment = hostEnvironment(goVersion)
	return nil
}

// finish concludes the experiment that ended with err and writes every
// result file; it returns the report and err joined with any write error.
func (g *invocation) finish(err error) (*report.Report, error) {
	g.conclude(err)
	g.rep.Finished = time.Now()
	g.rep.Complete = err == nil
	var be *build.Error
	if errors.As(err, &be) {
		g.rep.Build.Error = be.OutputTail
	}
	if writeErr := g.saveWithRenderings(); writeErr != nil {
		return g.rep, errors.Join(err, writeErr)
	}
	return g.rep, err
}

// save writes report.json alone, as the experiment goes.
func (g *invocation) save() error { return results.WriteReport(g.out, g.rep) }

// saveWithRenderings writes the final report.json, then report.md and
// report.html from it (results.WriteReport says why in that order).
func (g *invocation) saveWithRenderings() error {
	return results.WriteReport(g.out, g.rep, renderings...)
}

// renderings are report.md (the PR comment body) and report.html (the
// self-contained page).
var renderings = []results.Rendering{
	{Name: "report.md", Render: func(r *report.Report) ([]byte, error) { return []byte(render.Markdown(r)), nil }},
	{Name: "report.html", Render: func(r *report.Report) ([]byte, error) {
		page, err := render.HTML(r)
		return []byte(page), err
	}},
}

// tree is a source tree built as one side of the experiment.
type tree struct {
	side, dir string
	binary    *report.Binary // where the build is recorded in the report
	// prebuilt is the binary given for this side instead of a build of
	// dir, and prebuiltFlag the flag that gave it; "" to build.
	prebuilt, prebuiltFlag string
}

// build builds every tree with the same toolchain and flags into one
// temporary directory, which the caller removes (the directory of any
// returned binary), and keeps each binary's `go version -m`.
func (g *invocation) build(ctx context.Context, trees []tree) (map[string]string, error) {
	tmp, err := os.MkdirTemp("", "perfgate-bin-")
	if err != nil {
		return nil, err
	}
	// Open to every user: the service runs as an unprivileged user even
	// when perfgate is root (privilege.ServiceUser), and must reach its
	// binary. The binaries are the pull request's own code, no secret.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	// Under sudo the invoking user builds (build.Build) and writes here.
	if err := privilege.GiveToInvoker(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if g.cfg.Service.Build.CGO {
		g.warn("service.build.cgo: the binaries are built with CGO_ENABLED=1 and linked against this machine's C toolchain and libraries; base and head share them here, but the numbers hold for this machine's libc, not necessarily for the one the service runs with in production")
	}
	binaries := map[string]string{}
	g.sources = map[string]string{}
	for _, t := range trees {
		g.sources[t.side] = t.dir
		var b report.Binary
		err := g.group(fmt.Sprintf("perfgate: build %s (%s)", t.side, t.dir), func() error {
			var err error
			if t.prebuilt != "" {
				fmt.Fprintf(g.stdout, "perfgate: taking %s's binary from %s\n", t.side, t.prebuilt)
				g.warn(prebuiltWarning(g.cfg, t.side, t.prebuiltFlag, t.prebuilt))
				b, err = build.Prebuilt(ctx, t.side, t.dir, g.cfg.Service.Package, t.prebuilt, filepath.Join(tmp, t.side))
				return err
			}
			fmt.Fprintf(g.stdout, "perfgate: building %s from %s\n", t.side, t.dir)
			b, err = build.Build(ctx, t.side, t.dir, g.cfg.Service.Package, g.cfg.Service.Build, filepath.Join(tmp, t.side))
			return err
		})
		*t.binary = b
		if err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		binaries[t.side] = b.Path
		if err := os.MkdirAll(filepath.Join(g.out, "build"), 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(g.out, "build", t.side+".buildinfo.txt"), []byte(b.BuildInfo), 0o644)
		}
	}
	return binaries, nil
}

// measure prepares the configured target and runs the experiment on the built
// binaries: both sides in pairs, or onlySide alone for a recording.
// service.reset runs in resetDir, the head's tree (the recorded one).
func (g *invocation) measure(ctx context.Context, binaries map[string]string, onlySide, resetDir string) error {
	tg := g.targets[g.cfg.Target](g.cfg, cgroup.Limits{CPUMillicores: int64(g.cfg.Resources.CPU), MemoryBytes: int64(g.cfg.Resources.Memory)}, g.out)
	// Cleanup failures (a cluster or namespace not deleted, an image or a
	// container not removed) do not change the result, but the user must
	// know, from the report as much as from the terminal.
	tg.WarnTo(func(w string) { g.warn(w) })
	defer func() {
		if err := tg.Close(); err != nil {
			g.warn(fmt.Sprintf("cleaning up target %s: %v", tg.Name(), err))
		}
	}()
	prepareStarted := time.Now()
	env, err := tg.Prepare(ctx)
	g.rep.Environment.TargetEnvironment = env.Report()
	g.rep.Environment.PrepareSeconds = time.Since(prepareStarted).Seconds()
	g.warn(env.Warnings...)
	if err != nil {
		return err
	}
	duet := onlySide == "" && g.cfg.Experiment == "duet"
	if why := whyNoDuet(tg); duet && why != "" {
		g.warn(fmt.Sprintf("experiment: duet needs base and head on the same CPUs, driven by one load generator; %s, so this gate runs sequential pairs instead (noisier for CPU: see docs/statistics.md)", why))
		duet = false
	}
	g.rep.Experiment = "sequential"
	plan := fmt.Sprintf("%s pairs of %s", pairsRange(g.cfg), g.cfg.Load.Duration)
	if duet {
		g.rep.Experiment = "duet"
		plan = fmt.Sprintf("duet, %s rounds of %s", pairsRange(g.cfg), g.cfg.Load.Duration)
	}
	if onlySide != "" {
		g.rep.Experiment = "record"
		plan = fmt.Sprintf("%d runs of %s of %s", g.cfg.Pairs, g.cfg.Load.Duration, g.rep.Label)
	} else if g.rep.Recording() {
		// A paired recording runs the plan's first look in full: it
		// estimates, it never stops on a decision.
		plan = fmt.Sprintf("%s, %d rounds of %s, %s paired with %s", g.rep.Experiment, g.cfg.Pairs, g.cfg.Load.Duration, g.rep.Label, shortCommit(g.rep.PairedWith))
	}
	fmt.Fprintf(g.stdout, "perfgate: %s on %s (%s, cpu %s, memory %s, GOMAXPROCS %d)",
		plan, env.Target, env.Confinement, g.cfg.Resources.CPU, g.cfg.Resources.Memory, env.GOMAXPROCS)
	if onlySide == "" {
		fmt.Fprintf(g.stdout, ", seed %d", g.rep.Seed)
	}
	// A cluster's set-up (kind creates one) is not the gate's rounds.
	if prepared := g.rep.Environment.PrepareSeconds; prepared >= 1 {
		fmt.Fprintf(g.stdout, "; %s ready in %.0f s", env.Target, prepared)
	}
	fmt.Fprintln(g.stdout)
	var layout func(context.Context, experiment.LayoutRequest) error
	if onlySide == "" && g.cfg.Layout == "random" {
		// Removed with the binaries (gate).
		layout = g.layouts(ctx, filepath.Join(filepath.Dir(binaries[experiment.Base]), "paired-linker"))
	}
	if err := g.save(); err != nil {
		return err
	}
	return g.group("perfgate: measure ("+plan+")", func() error {
		_, err := experiment.Run(ctx, experiment.Options{
			Config: g.cfg, Target: tg, Binaries: binaries, OnlySide: onlySide, OutDir: g.out, Seed: g.rep.Seed,
			Duet: duet, GeneratorCPUs: generatorCPUs(env), ServiceCPUs: len(env.ServiceCPUs), Layout: layout,
			FailureStreak: verdict.FailureStreak(g.cfg),
			Progress:      g.stdout, Record: g.keepRun, Enough: g.decided, Reset: g.reset(resetDir),
		})
		return err
	})
}

// layouts relinks a side's tree with a layout of its own for each round
// (build.Layout), every function aligned as layout_align says, paired
// with the other side's as layout_pairing says (pairedLinker, built into
// linkerDir), the smaller side padded to the larger's text size
// (padLayouts), or is nil with a warning when the toolchain's linker
// cannot randomize layouts.
func (g *invocation) layouts(ctx context.Context, linkerDir string) func(context.Context, experiment.LayoutRequest) error {
	abilities := build.ReadLinkerAbilities(ctx)
	if !abilities.RandLayout {
		g.warn("this Go toolchain's linker has no -randlayout (Go 1.23 and later have it): every round runs the one layout of each side's build, and a difference of layout alone (about ±0.6% CPU per request, docs/benchmarks.md) can bias this gate's CPU verdict; build with a newer Go")
		return nil
	}
	align := g.cfg.LayoutAlign
	if align != 0 && !abilities.FuncAlign {
		g.warn(fmt.Sprintf("this Go toolchain's linker has no -funcalign, so layout: random relinks with the linker's own function alignment instead of layout_align's %d bytes: a service whose CPU sits in one tight loop may then spread ~1-2%% more per round (docs/benchmarks.md, \"Where a round's spread comes from\"); build with a newer Go", align))
		align = 0
	}
	g.rep.Build.Base.LayoutAlign, g.rep.Build.Head.LayoutAlign = align, align
	linker, pairing := g.pairedLinker(ctx, linkerDir)
	g.rep.Build.Base.LayoutPairing, g.rep.Build.Head.LayoutPairing = pairing, pairing
	// Padding sizes the smaller side's text at the linker's own
	// alignment; aligned, both sides' sections grow alike (a few bytes
	// per function), so the two stay as close.
	padding := g.padLayouts(ctx)
	return func(ctx context.Context, req experiment.LayoutRequest) error {
		draw := build.LayoutDraw{Seed: req.Seed, Align: align}
		if req.Paired {
			draw.Linker = linker
		}
		return build.Layout(ctx, req.Side, g.sources[req.Side], g.cfg.Service.Package, g.cfg.Service.Build, draw, padding[req.Side], req.Dst)
	}
}

// reset is service.reset as the experiment runs it, in dir and as the
// service's user; nil when the config has none.
func (g *invocation) reset(dir string) func(context.Context, io.Writer) error {
	if len(g.cfg.Service.Reset) == 0 {
		return nil
	}
	cmd := reset.Command{Args: g.cfg.Service.Reset, Dir: dir, Env: g.cfg.ResetEnv(),
		Timeout: g.cfg.Service.ResetTimeout.Std(), User: privilege.ServiceUser()}
	return cmd.Run
}

// keepRun keeps a run on disk the moment it is measured.
func (g *invocation) keepRun(r report.Run) error {
	g.rep.Runs = append(g.rep.Runs, r)
	if err := results.WriteRun(g.out, r); err != nil {
		return err
	}
	return g.save()
}

func (g *invocation) warn(warnings ...string) {
	for _, w := range warnings {
		fmt.Fprintf(g.stderr, "\nperfgate: WARNING: %s\n\n", w)
		g.rep.Warnings = append(g.rep.Warnings, w)
	}
}

// pairsRange is "10" for a fixed number of rounds, "10-20" for a range.
func pairsRange(cfg *config.Config) string {
	if cfg.MaxPairs > cfg.Pairs {
		return fmt.Sprintf("%d-%d", cfg.Pairs, cfg.MaxPairs)
	}
	return fmt.Sprint(cfg.Pairs)
}

// decided says whether the valid rounds (pairs) so far decide every
// gating metric, so the experiment may stop before its maximum.
func (g *invocation) decided(runs []report.Run) bool {
	if g.rep.Recording() {
		// A recording decides nothing: measured alone it runs every round
		// asked for; paired, the plan's first look (pairs.min), so every
		// night's estimate has the same precision.
		return g.rep.PairedRecording()
	}
	return verdict.MayStop(runs, g.cfg)
}

// whyNoDuet says why the prepared tg cannot drive base and head with one
// balanced attack, or "" when it can: perfgate's own generator reaches
// its instances, or the target makes one generator for both where its
// load runs (target.RemoteDuet) and has room for both side by side.
func whyNoDuet(tg target.Target) string {
	if _, inside := tg.(target.LoadsInside); !inside {
		return ""
	}
	remote, ok := tg.(target.RemoteDuet)
	if !ok {
		return fmt.Sprintf("the %s target generates its load inside the cluster, one service at a time", tg.Name())
	}
	if err := remote.DuetRoom(); err != nil {
		return err.Error()
	}
	return ""
}

func generatorCPUs(env target.Environment) int {
	if n := len(env.GeneratorCPUs); n > 0 {
		return n
	}
	return max(1, len(env.ServiceCPUs))
}

// prepareOut makes the results directory. An existing one is replaced only
// when it holds a previous perfgate result, so a typo never wipes a
// directory of other files.
func prepareOut(out string) error {
	entries, err := os.ReadDir(out)
	if err == nil && len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
			return optionError(OptionOut, out, NotResults)
		}
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	return os.MkdirAll(out, 0o755)
}
