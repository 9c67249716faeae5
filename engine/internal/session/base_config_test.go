package session

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

const testService = "service:\n  package: ./cmd/server\n  args: [\"-addr\", \"{addr}\"]\n"

const strictConfig = testService + "gate:\n  cpu: 1.5%\n"

// pullRequest commits files as tag v1 of a fresh repository, lets edit
// change the working tree (the pull request) and works in it from then on,
// as the Action does.
func pullRequest(t *testing.T, files map[string]string, edit func(top string)) {
	t.Helper()
	top := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(top, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "v1", "--allow-empty"}, {"tag", "v1"}} {
		if out, err := exec.Command("git", append([]string{"-C", top}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	edit(top)
	t.Chdir(top)
}

// gateWithBaseConfig runs gateFromBase for --base v1 of pullRequest's
// repository.
func gateWithBaseConfig(t *testing.T, files map[string]string, edit func(top string)) *invocation {
	t.Helper()
	pullRequest(t, files, edit)
	cfg, err := config.Load("perfgate.yml")
	if err != nil {
		t.Fatal(err)
	}
	g, base := baseInvocation(t, cfg)
	if err := g.gateFromBase(context.Background(), base, GateOptions{ConfigPath: "perfgate.yml"}); err != nil {
		t.Fatal(err)
	}
	return g
}

// baseInvocation is a gate's invocation of cfg with --base v1 of
// pullRequest's repository, and that base (removed when the test ends).
func baseInvocation(t *testing.T, cfg *config.Config) (*invocation, *build.Base) {
	t.Helper()
	base, err := build.ResolveBase(context.Background(), "v1", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := base.Cleanup(); err != nil {
			t.Error(err)
		}
	})
	g := newInvocation(report.ModeGate, cfg, t.TempDir(), nil, io.Discard, io.Discard)
	g.targets = everyTarget()
	return g, base
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPullRequestThatRelaxesItsGateIsGatedWithTheBasesValues(t *testing.T) {
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": strictConfig}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"gate:\n  cpu: 50%\nvalidity:\n  min_rate: 10%\n")
	})
	if g.cfg.Gate.CPU != 0.015 || g.rep.Config.Gate.CPU != 0.015 || g.cfg.Validity.MinRate != config.Default().Validity.MinRate {
		t.Errorf("gate.cpu %v (report %v), validity.min_rate %v: want the base's 1.5%% and the default", g.cfg.Gate.CPU, g.rep.Config.Gate.CPU, g.cfg.Validity.MinRate)
	}
	want := []report.ConfigChange{{Key: "gate.cpu", Base: "1.5%", Head: "50%"}, {Key: "validity.min_rate", Base: "99%", Head: "10%"}}
	if !slices.Equal(g.rep.ConfigChanges, want) {
		t.Errorf("config_changes = %+v, want %+v", g.rep.ConfigChanges, want)
	}
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], "gate.cpu 1.5% -> 50%") || !strings.Contains(g.rep.Warnings[0], "measured and gated with the base revision") {
		t.Errorf("warnings = %q, want one naming the change", g.rep.Warnings)
	}
}

// A symlink the pull request puts in place of perfgate.yml must not make
// the base's copy of another, looser file the one that decides.
func TestBaseConfigIsReadAtTheSamePathNotThroughASymlink(t *testing.T) {
	loose := testService + "gate:\n  cpu: 90%\n"
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": strictConfig, "loose.yml": loose}, func(top string) {
		os.Remove(filepath.Join(top, "perfgate.yml"))
		if err := os.Symlink("loose.yml", filepath.Join(top, "perfgate.yml")); err != nil {
			t.Fatal(err)
		}
	})
	if g.cfg.Gate.CPU != 0.015 || len(g.rep.ConfigChanges) != 1 {
		t.Errorf("gate.cpu %v, changes %+v: want the base's perfgate.yml (1.5%%)", g.cfg.Gate.CPU, g.rep.ConfigChanges)
	}
}

func TestUnchangedConfigAddsNothing(t *testing.T) {
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": strictConfig + "pairs: 10\n"}, func(top string) {
		// Head changes how the service starts, not what is measured: that is
		// the pull request's to change.
		writeFile(t, filepath.Join(top, "perfgate.yml"), strings.Replace(strictConfig, "{addr}\"]", "{addr}\", \"-v\"]\n  ready: /ready", 1)+"pairs: 10\n")
	})
	if len(g.rep.ConfigChanges) != 0 || len(g.rep.Warnings) != 0 || g.cfg.Service.Ready != "/ready" || g.rep.ThresholdsFrom != report.ThresholdsFromBase {
		t.Errorf("changes %+v, warnings %q, ready %s, thresholds_from %q: want none, none, head's /ready and base", g.rep.ConfigChanges, g.rep.Warnings, g.cfg.Service.Ready, g.rep.ThresholdsFrom)
	}
}

// A pull request cannot make its own gate unable to see a regression by
// changing what is measured: the smallest plan, the regressed route left
// out of the load, other limits, another design. Each is replaced by the
// base's and listed; head's service settings stay.
func TestPullRequestThatShrinksItsPlanIsMeasuredWithTheBasesPlan(t *testing.T) {
	basePlan := testService + `resources:
  cpu: "1"
  memory: 256Mi
load:
  rate: 400
  requests: ["GET /search?q=alpha", "GET /"]
experiment: duet
pairs: {min: 20, max: 30}
profiles: [cpu, allocs]
`
	headPlan := strings.Replace(testService, "package: ./cmd/server", "package: ./cmd/server\n  ready: /ready", 1) + `resources:
  cpu: "2"
  memory: 256Mi
load:
  rate: 50
  requests: ["GET /"]
experiment: sequential
pairs: 10
profiles: [allocs]
layout: build
profile_rounds: 0
`
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": basePlan}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), headPlan)
	})
	cfg := g.cfg
	if cfg.Pairs != 20 || cfg.MaxPairs != 30 || cfg.Load.Rate != 400 || len(cfg.Load.Requests) != 2 || cfg.Experiment != "duet" ||
		cfg.Resources.CPU != 1000 || cfg.Layout != "random" || cfg.ProfileRounds != config.Default().ProfileRounds || !slices.Equal(cfg.Profiles, []string{"cpu", "allocs"}) {
		t.Errorf("plan after the base's: %+v", cfg)
	}
	if cfg.Service.Ready != "/ready" {
		t.Errorf("service.ready %q: head's service settings must stay head's", cfg.Service.Ready)
	}
	if g.rep.Config.Pairs != 20 || g.rep.Config.Load.Rate != 400 {
		t.Errorf("report.json's config shows pairs %d, rate %v: want the plan that ran", g.rep.Config.Pairs, g.rep.Config.Load.Rate)
	}
	want := []report.ConfigChange{
		{Key: "resources.cpu", Base: "1", Head: "2"},
		{Key: "load.rate", Base: "400", Head: "50"},
		{Key: "load.requests", Base: "GET /search?q=alpha, GET /", Head: "GET /"},
		{Key: "experiment", Base: "duet", Head: "sequential"},
		{Key: "layout", Base: "random", Head: "build"},
		{Key: "pairs.min", Base: "20", Head: "10"},
		{Key: "pairs.max", Base: "30", Head: "10"},
		{Key: "profiles", Base: "cpu, allocs", Head: "allocs"},
		{Key: "profile_rounds", Base: "3", Head: "0"},
	}
	if !slices.Equal(g.rep.ConfigChanges, want) {
		t.Errorf("config_changes =\n%+v\nwant\n%+v", g.rep.ConfigChanges, want)
	}
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], "load.requests GET /search?q=alpha, GET / -> GET /") {
		t.Errorf("warnings = %q, want one naming every change", g.rep.Warnings)
	}
}

// A request whose short form is the same but whose body changed is shown
// in full, so the change is not listed as "POST /order -> POST /order".
func TestChangedRequestBodyIsShownInFull(t *testing.T) {
	load := func(body string) string {
		return testService + "load:\n  requests:\n    - {method: POST, path: /order, body: '" + body + "'}\n"
	}
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": load(`{"qty":2}`)}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), load(`{}`))
	})
	if len(g.rep.ConfigChanges) != 1 || !strings.Contains(g.rep.ConfigChanges[0].Base, `qty`) || strings.Contains(g.rep.ConfigChanges[0].Head, `qty`) {
		t.Errorf("config_changes = %+v, want load.requests with both bodies", g.rep.ConfigChanges)
	}
}

// --target decides for both sides: a base whose perfgate.yml names
// another target is no change of head's.
func TestTargetFlagOverridesTheBasesTarget(t *testing.T) {
	pullRequest(t, map[string]string{"perfgate.yml": testService + "target: docker\n"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"target: kind\n")
	})
	cfg, err := loadConfig("perfgate.yml", "local", everyTarget())
	if err != nil {
		t.Fatal(err)
	}
	g, base := baseInvocation(t, cfg)
	if err := g.gateFromBase(context.Background(), base, GateOptions{ConfigPath: "perfgate.yml", Target: "local"}); err != nil {
		t.Fatal(err)
	}
	if g.cfg.Target != "local" || len(g.rep.ConfigChanges) != 0 {
		t.Errorf("target %s, changes %+v: want --target's local and no change", g.cfg.Target, g.rep.ConfigChanges)
	}
}

// Head's service under the base's plan is checked like a file: a build
// command that layout: random (the base's) cannot relink is refused,
// saying where to change the plan.
func TestHeadServiceThatTheBasesPlanCannotRunIsAConfigError(t *testing.T) {
	pullRequest(t, map[string]string{"perfgate.yml": strictConfig}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"  build:\n    command: [make, \"OUT={out}\"]\nlayout: build\ngate:\n  cpu: 1.5%\n")
	})
	cfg, err := config.Load("perfgate.yml")
	if err != nil {
		t.Fatal(err)
	}
	g, base := baseInvocation(t, cfg)
	err = g.gateFromBase(context.Background(), base, GateOptions{ConfigPath: "perfgate.yml"})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "layout: random") || !strings.Contains(err.Error(), "base branch's perfgate.yml first") {
		t.Errorf("err = %v, want a configuration error naming layout: random and the base branch", err)
	}
}

func TestConfigNewInHeadKeepsHeadsValuesAndSaysSo(t *testing.T) {
	g := gateWithBaseConfig(t, map[string]string{"README": "no perfgate.yml yet\n"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"gate:\n  cpu: 5%\n")
	})
	if g.cfg.Gate.CPU != 0.05 || len(g.rep.ConfigChanges) != 0 {
		t.Errorf("gate.cpu %v, changes %+v: want head's 5%% and no changes", g.cfg.Gate.CPU, g.rep.ConfigChanges)
	}
	if g.rep.ThresholdsFrom != report.ThresholdsFromHead {
		t.Errorf("thresholds_from %q, want head (the pull request adds perfgate.yml)", g.rep.ThresholdsFrom)
	}
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], "perfgate.yml does not exist at ") || !strings.Contains(g.rep.Warnings[0], "the measurement plan and thresholds are the pull request's own") {
		t.Errorf("warnings = %q, want one saying the base has no perfgate.yml", g.rep.Warnings)
	}
}

func TestBaseDirHasNoBaseConfig(t *testing.T) {
	cfg := config.Default()
	g := newInvocation(report.ModeGate, cfg, t.TempDir(), nil, io.Discard, io.Discard)
	if err := g.gateFromBase(context.Background(), &build.Base{Dir: t.TempDir()}, GateOptions{ConfigPath: "perfgate.yml"}); err != nil || len(g.rep.Warnings) != 0 || g.rep.ThresholdsFrom != "" {
		t.Errorf("err %v, warnings %q: a --base-dir gate has nothing to compare", err, g.rep.Warnings)
	}
}

// TestGateRunRecordsTheBasesThresholds: perfgate gate itself applies the
// base's plan and thresholds and writes the change into report.json and
// the comment, even when the gate ends early (here at a build that fails
// on both sides).
func TestGateRunRecordsTheBasesThresholds(t *testing.T) {
	files := map[string]string{"perfgate.yml": strictConfig, "go.mod": "module example.com/svc\n\ngo 1.24\n"}
	pullRequest(t, files, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"gate:\n  cpu: 50%\npairs: 10\n")
	})
	out := filepath.Join(t.TempDir(), "results")
	rep, err := Gate(context.Background(), GateOptions{ConfigPath: "perfgate.yml", Base: "v1", Head: ".", Out: out, Targets: everyTarget(), Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || rep == nil {
		t.Fatalf("report %v, err %v: want a failed build's report", rep, err)
	}
	want := []report.ConfigChange{{Key: "pairs.min", Base: "14", Head: "10"}, {Key: "pairs.max", Base: "28", Head: "10"}, {Key: "gate.cpu", Base: "1.5%", Head: "50%"}}
	if rep.Config.Gate.CPU != 0.015 || rep.Config.Pairs != 14 || !slices.Equal(rep.ConfigChanges, want) {
		t.Errorf("config gate.cpu %v, pairs %d, changes %+v: want the base's 1.5%% and 14, and the changes recorded", rep.Config.Gate.CPU, rep.Config.Pairs, rep.ConfigChanges)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.md"))
	md := string(data)
	if err != nil || !strings.Contains(md, "**Measured with the base's perfgate.yml plan**; this pull request changes pairs.min 14 → 10") || !strings.Contains(md, "| gate.cpu | 1.5% | 50% |") {
		t.Errorf("report.md (%v) does not show the changes:\n%s", err, md)
	}
}

// TestEveryConfigKeyIsPlanOrService: a key added to perfgate.yml must be
// put on one side of the rule of base_config.go, or a pull request could
// change what it is measured by without anyone deciding it may.
func TestEveryConfigKeyIsPlanOrService(t *testing.T) {
	fields := reflect.TypeFor[report.Config]()
	for i := range fields.NumField() {
		name := jsonName(fields.Field(i))
		if slices.Contains(planKeys, name) == slices.Contains(serviceKeys, name) {
			t.Errorf("perfgate.yml's %s must be in exactly one of planKeys and serviceKeys (base_config.go says which)", name)
		}
	}
	if n := len(planKeys) + len(serviceKeys); n != fields.NumField() {
		t.Errorf("planKeys and serviceKeys name %d keys; report.Config has %d", n, fields.NumField())
	}
}

// The Go runtime's variables in service.env are the plan's: GOGC=off on
// both sides would hide the collector time an allocation regression costs.
// The rest of head's environment stays head's.
func TestPullRequestThatTunesTheGoRuntimeIsMeasuredWithTheBasesSettings(t *testing.T) {
	env := func(vars string) string { return testService + "  env:\n" + vars }
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": env("    GOMEMLIMIT: 200MiB\n    LOG: info\n")}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), env("    GOGC: \"off\"\n    GODEBUG: madvdontneed=1\n    LOG: debug\n")+"  env_from:\n    GOMAXPROCS: RUNNER_CPUS\n")
	})
	wantEnv := map[string]string{"GOMEMLIMIT": "200MiB", "LOG": "debug"}
	if !reflect.DeepEqual(g.cfg.Service.Env, wantEnv) || len(g.cfg.Service.EnvFrom) != 0 {
		t.Errorf("service.env %v, env_from %v: want %v and no env_from", g.cfg.Service.Env, g.cfg.Service.EnvFrom, wantEnv)
	}
	want := []report.ConfigChange{
		{Key: "service.env.GODEBUG", Base: unsetEnv, Head: "madvdontneed=1"},
		{Key: "service.env.GOGC", Base: unsetEnv, Head: "off"},
		{Key: "service.env.GOMEMLIMIT", Base: "200MiB", Head: unsetEnv},
		{Key: "service.env_from.GOMAXPROCS", Base: unsetEnv, Head: "RUNNER_CPUS"},
	}
	if !slices.Equal(g.rep.ConfigChanges, want) {
		t.Errorf("config_changes =\n%+v\nwant\n%+v", g.rep.ConfigChanges, want)
	}
	if !strings.Contains(g.rep.Config.Service.Env["GOMEMLIMIT"], "200MiB") {
		t.Errorf("report.json's service.env %v: want the environment that ran", g.rep.Config.Service.Env)
	}
}
