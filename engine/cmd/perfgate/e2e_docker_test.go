package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// dockerLeftovers lists containers and images perfgate labelled that are
// still there.
func dockerLeftovers(t *testing.T) []string {
	t.Helper()
	var found []string
	for _, args := range [][]string{
		{"container", "ls", "--all", "--filter", "label=perfgate.run", "--format", "container {{.Names}} {{.Status}}"},
		{"image", "ls", "--filter", "label=perfgate.run", "--format", "image {{.Repository}}:{{.Tag}}"},
	} {
		out, err := exec.Command("docker", args...).Output()
		if err != nil {
			t.Fatalf("docker %v: %v", args, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if line != "" {
				found = append(found, line)
			}
		}
	}
	return found
}

func dockerConfig(t *testing.T, cpu, memory string, rate int) string {
	return writeConfig(t, limitedExperiment(cpu, memory, rate)+"target: docker\n")
}

// TestDockerGateThrottlesAtATenthOfACPU runs the service in a container at
// a tenth of a core under a load that needs more: the container's cgroup
// throttles it, the report shows it, and the hint says so.
func TestDockerGateThrottlesAtATenthOfACPU(t *testing.T) {
	targettest.RequireDocker(t)
	// 1,200 req/s needs ~2 times the 100m quota at the example's ~175
	// µs/req: throttled in nearly every period. At 400 req/s it needed ~0.7
	// of it and the median throttled share fell below the hint's tenth on a
	// quiet machine (CI, 2026-11-23). So far past the quota most rounds end
	// invalid (errors above 1%) and the gate stops after three in a row;
	// the hint must show on such a gate too. At 800 req/s some rounds were
	// valid and the gate ran all nine, ~14 s each at a tenth of a core
	// (containers start, get ready and drain slowly there): 100-140 s.
	g := runGateCommand(t, dockerConfig(t, "100m", "256Mi", 1200), exampleService(t), regressedHead(t, ""))
	if g.report == nil || g.report.Verdict == "regression" || g.report.Environment.Target != "docker" {
		t.Fatalf("exit %d, want a docker report and no regression", g.code)
	}
	throttled := 0
	for _, r := range g.report.Runs {
		if r.Figures.ThrottledRatio >= 0.1 {
			throttled++
		}
	}
	if throttled == 0 {
		t.Errorf("no run was throttled in a tenth of its periods at 100m and 1,200 req/s")
	}
	if !hasHint(g.report, "cpu-throttling") {
		t.Errorf("no cpu-throttling hint: %+v", g.report.Hints)
	}
	md, err := os.ReadFile(filepath.Join(g.out, "report.md"))
	if err != nil || !strings.Contains(string(md), "of its scheduling periods") {
		t.Errorf("report.md does not show the throttling hint (err %v)", err)
	}
	if l := dockerLeftovers(t); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestDockerGateTinyMemoryIsInvalidOOM(t *testing.T) {
	targettest.RequireDocker(t)
	// 6Mi, Docker's smallest: the gating rounds, which capture no
	// profiles, peak near 7Mi.
	g := runGateCommand(t, dockerConfig(t, `"1"`, "6Mi", 200), exampleService(t), regressedHead(t, ""))
	if g.code != 4 || g.report == nil || g.report.Verdict != "invalid" {
		t.Fatalf("exit %d, want 4 with verdict invalid", g.code)
	}
	if !strings.Contains(g.report.Reason, "OOM-killed") {
		t.Errorf("reason %q does not say OOM-killed", g.report.Reason)
	}
	if !hasHint(g.report, "oom-killed") {
		t.Errorf("no oom-killed hint: %+v", g.report.Hints)
	}
	if l := dockerLeftovers(t); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
