package session

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	if err := g.gateFromBase(context.Background(), base, "perfgate.yml"); err != nil {
		t.Fatal(err)
	}
	return g
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
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], "gate.cpu 1.5% -> 50%") || !strings.Contains(g.rep.Warnings[0], "gated with the base revision") {
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
	g := gateWithBaseConfig(t, map[string]string{"perfgate.yml": strictConfig}, func(top string) {
		// Head changes what is not a threshold: that is the pull request's to change.
		writeFile(t, filepath.Join(top, "perfgate.yml"), strictConfig+"pairs: 10\n")
	})
	if len(g.rep.ConfigChanges) != 0 || len(g.rep.Warnings) != 0 || g.cfg.Pairs != 10 {
		t.Errorf("changes %+v, warnings %q, pairs %d: want none, none and head's 10", g.rep.ConfigChanges, g.rep.Warnings, g.cfg.Pairs)
	}
}

func TestConfigNewInHeadKeepsHeadsValuesAndSaysSo(t *testing.T) {
	g := gateWithBaseConfig(t, map[string]string{"README": "no perfgate.yml yet\n"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"gate:\n  cpu: 5%\n")
	})
	if g.cfg.Gate.CPU != 0.05 || len(g.rep.ConfigChanges) != 0 {
		t.Errorf("gate.cpu %v, changes %+v: want head's 5%% and no changes", g.cfg.Gate.CPU, g.rep.ConfigChanges)
	}
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], "perfgate.yml does not exist at ") || !strings.Contains(g.rep.Warnings[0], "the gate and validity thresholds are the pull request's own") {
		t.Errorf("warnings = %q, want one saying the base has no perfgate.yml", g.rep.Warnings)
	}
}

func TestBaseDirHasNoBaseConfig(t *testing.T) {
	cfg := config.Default()
	g := newInvocation(report.ModeGate, cfg, t.TempDir(), nil, io.Discard, io.Discard)
	if err := g.gateFromBase(context.Background(), &build.Base{Dir: t.TempDir()}, "perfgate.yml"); err != nil || len(g.rep.Warnings) != 0 {
		t.Errorf("err %v, warnings %q: a --base-dir gate has nothing to compare", err, g.rep.Warnings)
	}
}

// TestGateRunRecordsTheBasesThresholds: perfgate gate itself applies the
// base's thresholds and writes the change into report.json, even when the
// gate ends early (here at a build that fails on both sides).
func TestGateRunRecordsTheBasesThresholds(t *testing.T) {
	files := map[string]string{"perfgate.yml": strictConfig, "go.mod": "module example.com/svc\n\ngo 1.24\n"}
	pullRequest(t, files, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+"gate:\n  cpu: 50%\n")
	})
	out := filepath.Join(t.TempDir(), "results")
	rep, err := Gate(context.Background(), GateOptions{ConfigPath: "perfgate.yml", Base: "v1", Head: ".", Out: out, Targets: everyTarget(), Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || rep == nil {
		t.Fatalf("report %v, err %v: want a failed build's report", rep, err)
	}
	if rep.Config.Gate.CPU != 0.015 || len(rep.ConfigChanges) != 1 || rep.ConfigChanges[0].Head != "50%" {
		t.Errorf("config gate.cpu %v, changes %+v: want the base's 1.5%% and the change recorded", rep.Config.Gate.CPU, rep.ConfigChanges)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(data), "changes perfgate.yml's thresholds") {
		t.Errorf("report.md (%v) does not show the change:\n%s", err, data)
	}
}
