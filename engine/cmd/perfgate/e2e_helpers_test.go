package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// repoRoot is the perfgate repository, the engine module's parent.
func repoRoot(t *testing.T) string {
	t.Helper()
	return filepath.Dir(targettest.ModuleRoot(t))
}

// exampleService is the bundled example service, the base of every gate.
func exampleService(t *testing.T) string {
	return filepath.Join(repoRoot(t), "examples", "service")
}

// regressedHead copies the example service and applies one of the planted
// regressions, as a pull request would.
func regressedHead(t *testing.T, patch string) string {
	t.Helper()
	head := filepath.Join(t.TempDir(), "head")
	if out, err := exec.Command("cp", "-r", exampleService(t), head).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v\n%s", err, out)
	}
	if patch != "" {
		cmd := exec.Command("git", "apply", filepath.Join(repoRoot(t), "examples", "regressions", patch))
		cmd.Dir = head
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apply %s: %v\n%s", patch, err, out)
		}
	}
	return head
}

// writeConfig writes a perfgate.yml for the example service: a short
// experiment, with extra lines appended (later keys must not repeat).
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "perfgate.yml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const shortExperiment = `version: 1
service:
  package: ./cmd/server
  args: ["-addr", "{addr}"]
  ready_timeout: %s
resources:
  cpu: "1"
  memory: %s
load:
  rate: 200
  warmup: 1s
  duration: 2s
  requests:
    - GET /search?q=alpha
    - GET /search?q=steel
    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '{"id":1,"qty":2}'
# Few rounds whose gate can still fail (perfgate refuses a plan that
# cannot: six rounds reach 1/64 against alpha 0.1 over six metrics), and a
# loose CPU threshold: these tests exercise failures, limits and plumbing,
# not verdicts.
pairs: 6
profile_rounds: 1
# One build per side for every round: relinking both sides each round
# (the default, which TestGateFindsAllocationRegression checks) costs ~1 s
# a round, and these tests' outcomes do not depend on layouts.
layout: build
gate:
  alpha: 0.1
  cpu: 100%%
  # 400 requests a window: see testdata/decisive-experiment.yml.
  heap: 256Ki
validity:
  # A 2 s window of this light mix holds ~15 CPU samples.
  min_cpu_samples: 5
`

// limitedExperiment is shortExperiment at a CPU limit, memory limit and
// rate of the test's choosing (the throttling and OOM gates).
func limitedExperiment(cpu, memory string, rate int) string {
	return strings.NewReplacer(`cpu: "1"`, "cpu: "+cpu, "rate: 200", fmt.Sprintf("rate: %d", rate)).Replace(fmt.Sprintf(shortExperiment, "30s", memory))
}

// decisiveExperiment has enough pairs for the exact signed-rank test to
// reach significance (testdata/decisive-experiment.yml says why); the
// action's end-to-end test runs the same file.
var decisiveExperiment = func() string {
	data, err := os.ReadFile("testdata/decisive-experiment.yml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// relinkedExperiment is decisiveExperiment at the default layout, random:
// every round relinks both sides with layouts of its own, as a user's gate
// does. For the tests of that path; the others keep one build per side.
var relinkedExperiment = func() string {
	const build, random = "\nlayout: build\n", "\nlayout: random\n"
	if !strings.Contains(decisiveExperiment, build) {
		panic("testdata/decisive-experiment.yml changed: no line layout: build")
	}
	return strings.Replace(decisiveExperiment, build, random, 1)
}()

// fewestRounds turns decisiveExperiment or shortExperiment into 4 rounds
// at alpha 0.5, the fewest in which a gate can still call a regression over
// the six gating metrics (2^-4 <= 0.5/6), for tests whose gate asserts only
// a large planted regression or none.
func fewestRounds(t *testing.T, cfg string) string {
	t.Helper()
	for _, line := range []string{"\npairs: 6\n", "\n  alpha: 0.1\n"} {
		if !strings.Contains(cfg, line) {
			t.Fatalf("the experiment changed: no line %q", strings.TrimSpace(line))
		}
	}
	return strings.NewReplacer("\npairs: 6\n", "\npairs: 4\n", "\n  alpha: 0.1\n", "\n  alpha: 0.5\n").Replace(cfg)
}

type gateResult struct {
	code           int
	stdout, stderr string
	out            string
	report         *report.Report
}

// runGateCommand runs perfgate gate with extra flags (e.g. --target) and
// reads the report it wrote. An absolute base is a directory (--base-dir),
// anything else a git revision (--base).
func runGateCommand(t *testing.T, configPath, base, head string, extra ...string) gateResult {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	var stdout, stderr bytes.Buffer
	baseFlag := "--base"
	if filepath.IsAbs(base) {
		baseFlag = "--base-dir"
	}
	args := append([]string{"gate", "--config", configPath, baseFlag, base, "--head", head, "--out", out}, extra...)
	code := run(context.Background(), args, &stdout, &stderr)
	g := gateResult{code: code, stdout: stdout.String(), stderr: stderr.String(), out: out}
	if data, err := os.ReadFile(filepath.Join(out, "report.json")); err == nil {
		g.report = &report.Report{}
		if err := json.Unmarshal(data, g.report); err != nil {
			t.Fatalf("report.json does not parse: %v", err)
		}
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, g.stdout, g.stderr)
	return g
}

// leftovers lists the perfgate cgroups and service processes still alive
// that belong to the given perfgate processes (this test process, which
// runs perfgate in-process, when none is given): groups named
// perfgate-<host>-<pid>-<seq> (cgroup.Create) with one of their pids, and
// processes run from a perfgate-bin- directory that descend from one of
// them or were orphaned. Another perfgate on the machine is not this
// test's to answer for: scripts/test.sh runs the end-to-end gates in two
// test processes at once, and the Action's tests run perfgate too.
func leftovers(t *testing.T, pids ...int) []string {
	t.Helper()
	if len(pids) == 0 {
		pids = []int{os.Getpid()}
	}
	var found []string
	// Not perfgate-k8s, the local cluster's cgroup root: its name holds no
	// owner.
	for _, parent := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"} {
		for _, pid := range pids {
			group := "perfgate-" + owner.Owner{Host: owner.Host(), PID: pid}.String() + "-[0-9]*"
			matches, _ := filepath.Glob(filepath.Join(parent, "**", group))
			direct, _ := filepath.Glob(filepath.Join(parent, group))
			found = append(found, append(matches, direct...)...)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), "perfgate-bin-") {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil && descendsOrOrphaned(pid, pids) {
			found = append(found, p+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return found
}

// descendsOrOrphaned says whether the process pid descends from one of
// ancestors, or was orphaned (its parent is init: the process that
// started it is gone, and so nobody will stop it).
func descendsOrOrphaned(pid int, ancestors []int) bool {
	for step := 0; pid > 1 && step < 64; step++ {
		ppid, err := target.ParentPID(pid)
		if err != nil {
			return false // gone meanwhile
		}
		if ppid == 1 {
			return step == 0
		}
		if slices.Contains(ancestors, ppid) {
			return true
		}
		pid = ppid
	}
	return false
}
