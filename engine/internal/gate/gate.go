// Package gate runs `perfgate gate`: configuration, both builds, the
// experiment on the target, and the results directory.
package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/local"
)

// Options are the flags of `perfgate gate`.
type Options struct {
	ConfigPath string
	Base       string // directory or git ref
	Head       string // directory
	Out        string
	// Target overrides the config's target when set (the Action's target input).
	Target string
	// Seed replays a run order; nil picks a fresh one.
	Seed    *uint64
	Command []string
	Stdout  io.Writer
	Stderr  io.Writer
}

// Run performs the gate and returns the report it wrote (nil when nothing
// could be written) and the error that ended it, if any.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	cfg, err := config.Load(o.ConfigPath)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if o.Target != "" {
		cfg.Target = o.Target
	}
	if cfg.Target != "local" {
		return nil, configErrorf("%s: target: %q is not available in this version of perfgate; use target: local", o.ConfigPath, cfg.Target)
	}
	if info, err := os.Stat(o.Head); err != nil || !info.IsDir() {
		return nil, configErrorf("--head %q is not a directory; pass the checkout of the pull request's head", o.Head)
	}
	if err := prepareOut(o.Out); err != nil {
		return nil, err
	}
	g := &gateRun{o: o, cfg: cfg, rep: &report.Report{
		Schema: report.Schema, Verdict: report.Error, Reason: "running", Command: o.Command,
		Started: time.Now(), Config: *cfg, Runs: []report.Run{}, Metrics: []report.Metric{},
		Functions: []report.Function{}, Hints: []report.Hint{}, Warnings: []string{},
	}}
	g.rep.Seed = rand.Uint64()
	if o.Seed != nil {
		g.rep.Seed = *o.Seed
	}
	err = g.run(ctx)
	g.conclude(err)
	g.rep.Finished = time.Now()
	g.rep.Complete = err == nil
	var be *build.Error
	if errors.As(err, &be) {
		g.rep.Build.Error = be.OutputTail
	}
	if mdErr := g.writeRenderings(); mdErr != nil {
		err = errors.Join(err, mdErr)
	}
	if writeErr := g.save(); writeErr != nil {
		return g.rep, errors.Join(err, writeErr)
	}
	return g.rep, err
}

type gateRun struct {
	o   Options
	cfg *config.Config
	rep *report.Report
}

func (g *gateRun) save() error { return results.WriteReport(g.o.Out, g.rep) }

// writeRenderings writes report.md (the PR comment body) and report.html
// (the self-contained page) from the report.
func (g *gateRun) writeRenderings() error {
	page, err := render.HTML(g.rep)
	if err != nil {
		return fmt.Errorf("render report.html: %w", err)
	}
	return errors.Join(
		os.WriteFile(filepath.Join(g.o.Out, "report.md"), []byte(render.Markdown(g.rep)), 0o644),
		os.WriteFile(filepath.Join(g.o.Out, "report.html"), []byte(page), 0o644))
}

func (g *gateRun) run(ctx context.Context) error {
	if err := g.save(); err != nil {
		return err
	}
	goVersion, err := build.GoVersion(ctx)
	if err != nil {
		return err
	}
	g.rep.Environment = hostEnvironment(goVersion)

	base, err := build.ResolveBase(ctx, g.o.Base, g.o.Head)
	if err != nil {
		return &ConfigError{Err: err}
	}
	defer func() {
		if err := base.Cleanup(); err != nil {
			fmt.Fprintf(g.o.Stderr, "perfgate: warning: could not remove the base worktree: %v\n", err)
		}
	}()
	binaries, err := g.buildBoth(ctx, base)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(binaries[experiment.Base]))

	tg := local.New(cgroup.Limits{CPUMillicores: int64(g.cfg.Resources.CPU), MemoryBytes: int64(g.cfg.Resources.Memory)}, g.cfg.Service.Env["GOMAXPROCS"])
	defer tg.Close()
	env, err := tg.Prepare(ctx)
	g.rep.Environment.Environment = env
	g.warn(env.Warnings...)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.o.Stdout, "perfgate: %d pairs of %s on %s (%s, cpu %s, memory %s, GOMAXPROCS %d), seed %d\n",
		g.cfg.Pairs, g.cfg.Load.Duration, env.Target, env.Confinement, g.cfg.Resources.CPU, g.cfg.Resources.Memory, env.GOMAXPROCS, g.rep.Seed)
	if err := g.save(); err != nil {
		return err
	}
	_, err = experiment.Run(ctx, experiment.Options{
		Config: g.cfg, Target: tg, Binaries: binaries, OutDir: g.o.Out, Seed: g.rep.Seed,
		GeneratorCPUs: generatorCPUs(env), Progress: g.o.Stdout, Record: g.record,
	})
	return err
}

// record keeps a run on disk the moment it is measured.
func (g *gateRun) record(r report.Run) error {
	g.rep.Runs = append(g.rep.Runs, r)
	if err := results.WriteRun(g.o.Out, r); err != nil {
		return err
	}
	return g.save()
}

func (g *gateRun) buildBoth(ctx context.Context, base *build.Base) (map[string]string, error) {
	tmp, err := os.MkdirTemp("", "perfgate-bin-")
	if err != nil {
		return nil, err
	}
	binaries := map[string]string{}
	for _, side := range []struct {
		label, tree string
		dst         *build.Binary
	}{{experiment.Base, base.Dir, &g.rep.Build.Base}, {experiment.Head, g.o.Head, &g.rep.Build.Head}} {
		fmt.Fprintf(g.o.Stdout, "perfgate: building %s from %s\n", side.label, side.tree)
		b, err := build.Build(ctx, side.label, side.tree, g.cfg.Service.Package, filepath.Join(tmp, side.label))
		*side.dst = b
		if err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		binaries[side.label] = b.Path
		if err := os.MkdirAll(filepath.Join(g.o.Out, "build"), 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(g.o.Out, "build", side.label+".buildinfo.txt"), []byte(b.BuildInfo), 0o644)
		}
	}
	return binaries, nil
}

func (g *gateRun) warn(warnings ...string) {
	for _, w := range warnings {
		fmt.Fprintf(g.o.Stderr, "\nperfgate: WARNING: %s\n\n", w)
		g.rep.Warnings = append(g.rep.Warnings, w)
	}
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
			return configErrorf("--out %q exists and is not a perfgate results directory; pass a new or empty directory", out)
		}
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	return os.MkdirAll(out, 0o755)
}
