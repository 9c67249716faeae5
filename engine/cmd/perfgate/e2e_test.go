package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/perf/benchfmt"

	"github.com/perfgate/perfgate/engine/internal/capture"
)

// TestGateFindsAllocationRegression is the main path: a short gate of the
// example service against a head with a per-request fmt.Sprintf.
func TestGateFindsAllocationRegression(t *testing.T) {
	// The example's default port is busy: perfgate picks a port per run.
	if l, err := net.Listen("tcp", "127.0.0.1:8080"); err == nil {
		defer l.Close()
	}
	g := runGateCommand(t, writeConfig(t, relinkedExperiment), exampleService(t), regressedHead(t, "alloc-sprintf.patch"))
	if g.code != 1 || g.report == nil || g.report.Verdict != "regression" || !g.report.Complete {
		t.Fatalf("gate: exit %d, want 1 with verdict regression", g.code)
	}
	rep := g.report
	// Six duet rounds decide it (a fixed plan), then three profile rounds.
	gating, profiling := 0, 0
	for _, r := range rep.Runs {
		if r.ProfileRound {
			profiling++
		} else {
			gating++
		}
	}
	if gating != 12 || profiling != 6 || rep.Experiment != "duet" {
		t.Fatalf("%s: %d gating and %d profile runs, want a duet of 12 and 6", rep.Experiment, gating, profiling)
	}
	// The default layout, random: every run a binary relinked with a
	// layout of its own (the plumbing tests keep their builds).
	seeds := map[uint64]bool{}
	for _, r := range rep.Runs {
		seeds[r.LayoutSeed] = true
	}
	if len(seeds) != len(rep.Runs) || seeds[0] {
		t.Errorf("%d distinct layout seeds over %d runs (0 among them: %v), want one per run", len(seeds), len(rep.Runs), seeds[0])
	}
	for _, m := range rep.Metrics {
		if m.Name == "allocs" && (m.Outcome != "regression" || m.Delta < 0.2 || m.CI[0] < 0.1 || m.Pairs != 6) {
			t.Errorf("allocs: %+v, want a regression of about +37%%", m)
		}
		if m.Name == "errors" && m.Outcome != "unchanged" {
			t.Errorf("errors: %+v, want unchanged", m)
		}
	}
	if rep.Counts["regression"] < 1 || !strings.Contains(rep.Reason, "allocs +") {
		t.Errorf("reason %q, counts %v", rep.Reason, rep.Counts)
	}

	// Per-request allocations: every head run above every base run.
	var maxBase, minHead float64 = 0, 1e18
	for _, r := range rep.Runs {
		if !r.Valid || r.Figures.AllocsPerRequest == nil {
			t.Fatalf("run %s/%d invalid or without MemStats: %+v", r.Side, r.Pair, r.InvalidReasons)
		}
		a := *r.Figures.AllocsPerRequest
		if r.Side == "base" {
			maxBase = max(maxBase, a)
		} else {
			minHead = min(minHead, a)
		}
	}
	if minHead <= maxBase*1.05 {
		t.Errorf("allocs/req: head min %.1f not clearly above base max %.1f", minHead, maxBase)
	}

	// The cgroup quota read back equals the configured limit.
	env := rep.Environment
	if os.Geteuid() == 0 {
		if env.Confinement == "unconfined" || env.Limits.CPUMillicores != 1000 || env.Limits.MemoryBytes != 256<<20 {
			t.Errorf("limits read back %+v (%s), want 1000m and 256Mi", env.Limits, env.Confinement)
		}
	}
	if env.GOMAXPROCS != 1 || env.GoVersion == "" || env.Kernel == "" || env.CPUModel == "" {
		t.Errorf("environment incomplete: %+v", env)
	}

	// Every profile parses, per run and merged per side; only the profile
	// rounds capture them.
	for _, r := range rep.Runs {
		if want := map[bool]int{true: 6, false: 0}[r.ProfileRound]; len(r.Profiles) != want {
			t.Errorf("run %s/%d (profile round %v) has %d profiles, want %d: %+v", r.Side, r.Pair, r.ProfileRound, len(r.Profiles), want, r.Profiles)
		}
		for _, p := range r.Profiles {
			parseProfile(t, filepath.Join(g.out, r.Dir, p.File))
		}
		checkVegetaResults(t, filepath.Join(g.out, r.Dir, "results.bin"), r.Load.Requests)
	}
	for _, side := range []string{"base", "head"} {
		for _, kind := range []string{"cpu", "allocs", "mutex", "block", "goroutine", "heap"} {
			parseProfile(t, filepath.Join(g.out, side+"."+kind+".pb.gz"))
		}
	}
	// Allocation profiles are sampled (one per 512 KiB), so a short run
	// cannot show the small Sprintf strings reliably; the search handler,
	// which allocates tens of KiB per request, must be there.
	for _, side := range []string{"base", "head"} {
		if allocSpace(t, filepath.Join(g.out, side+".allocs.pb.gz"), "handleSearch") == 0 {
			t.Errorf("%s.allocs.pb.gz attributes nothing to the search handler", side)
		}
	}

	// benchstat reads both files as one table: same configuration, one
	// line per valid run.
	base, head := readBench(t, filepath.Join(g.out, "bench", "base.txt")), readBench(t, filepath.Join(g.out, "bench", "head.txt"))
	if len(base) != 6 || len(head) != 6 {
		t.Errorf("bench files have %d and %d results, want 6 each", len(base), len(head))
	}
	if !strings.Contains(g.stdout, "paired comparison") || !strings.Contains(g.stdout, "verdict: regression") {
		t.Errorf("no comparison printed:\n%s", g.stdout)
	}
	if l := leftovers(t); len(l) > 0 {
		t.Errorf("left behind after a successful gate: %v", l)
	}

	// report.md is the PR comment; perfgate report renders the same from
	// report.json alone.
	md, err := os.ReadFile(filepath.Join(g.out, "report.md"))
	if err != nil || !strings.HasPrefix(string(md), "<!-- perfgate:report -->\n") || !strings.Contains(string(md), "perfgate: regression") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if page, err := os.ReadFile(filepath.Join(g.out, "report.html")); err != nil || !strings.Contains(string(page), "perfgate: regression") || !strings.Contains(string(page), `"allocs"`) {
		t.Errorf("report.html missing or without the verdict and the allocation flame graph: %v", err)
	}
	var rendered, renderErr strings.Builder
	if code := run(context.Background(), []string{"report", "--in", filepath.Join(g.out, "report.json")}, &rendered, &renderErr); code != 0 || rendered.String() != string(md) {
		t.Errorf("perfgate report: exit %d, same as report.md: %v\n%s", code, rendered.String() == string(md), renderErr.String())
	}

	// compare recomputes the same verdict from the recorded runs, and
	// another one under looser thresholds, without measuring again.
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"compare", "--out", g.out}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "verdict: regression") {
		t.Errorf("compare: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	loose := writeConfig(t, "version: 1\nservice:\n  package: ./cmd/server\n  args: [\"-addr\", \"{addr}\"]\ngate:\n  cpu: 100%\n  allocs: 100%\n  bytes: 100%\n")
	stdout.Reset()
	if code := run(context.Background(), []string{"compare", "--out", g.out, "--config", loose}, &stdout, &stderr); code != 0 || strings.Contains(stdout.String(), "verdict: regression") {
		t.Errorf("compare with 100%% thresholds: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

func parseProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	p, err := capture.ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allocSpace sums alloc_space of samples with a function whose name
// contains fn on the stack.
func allocSpace(t *testing.T, path, fn string) int64 {
	p := parseProfile(t, path)
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "alloc_space" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("%s has no alloc_space", path)
	}
	var total int64
	for _, s := range p.Sample {
	stack:
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if strings.Contains(line.Function.Name, fn) {
					total += s.Value[idx]
					break stack
				}
			}
		}
	}
	return total
}

func checkVegetaResults(t *testing.T, path string, want uint64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := vegeta.NewDecoder(f)
	var n uint64
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			break
		}
		n++
	}
	if n != want || n == 0 {
		t.Errorf("%s holds %d results, the run counted %d", path, n, want)
	}
}

func readBench(t *testing.T, path string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var results []*benchfmt.Result
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result(); rec := rec.(type) {
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", path, rec)
		}
	}
	return results
}

func TestGateTinyMemoryLimitIsInvalidOOM(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("memory limits need cgroups (root)")
	}
	// 5Mi: the gating rounds, which capture no profiles, peak near 7Mi.
	cfg := writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "5Mi"))
	g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, ""))
	if g.code != 4 || g.report == nil || g.report.Verdict != "invalid" {
		t.Fatalf("exit %d, want 4 with verdict invalid", g.code)
	}
	if !strings.Contains(g.report.Reason, "OOM-killed") {
		t.Errorf("reason %q does not say OOM-killed", g.report.Reason)
	}
	if !hasHint(g.report, "oom-killed") {
		t.Errorf("no oom-killed hint: %+v", g.report.Hints)
	}
	if l := leftovers(t); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// A head whose service fails in every round (here: every POST /order
// answers 500, a third of the requests) is a regression, not an invalid
// measurement: the gate goes on past three invalid rounds to the five
// whose one-sided failures are significant at alpha 0.1 in a family of
// two (verdict.FailureStreak), and says how the service failed.
func TestGateHeadFailingEveryRoundIsARegression(t *testing.T) {
	head := regressedHead(t, "")
	order := filepath.Join(head, "internal", "httpapi", "order.go")
	src, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	entry := "func (s *Server) handleOrder(w http.ResponseWriter, r *http.Request) {\n"
	if !bytes.Contains(src, []byte(entry)) {
		t.Fatalf("%s has no %q: the example service changed", order, entry)
	}
	planted := bytes.Replace(src, []byte(entry), []byte(entry+"\ts.writeError(w, http.StatusInternalServerError, \"planted failure\")\n\treturn\n"), 1)
	if err := os.WriteFile(order, planted, 0o644); err != nil {
		t.Fatal(err)
	}
	g := runGateCommand(t, writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi")), exampleService(t), head)
	if g.code != 1 || g.report == nil || g.report.Verdict != "regression" {
		t.Fatalf("exit %d, want 1 with verdict regression\n%s", g.code, g.stdout)
	}
	rep := g.report
	for _, want := range []string{"failures: head's service failed in 5 of 5 rounds, base's in 0", "head: error rate 33.", "no other metric could be compared"} {
		if !strings.Contains(rep.Reason, want) {
			t.Errorf("reason %q\nwant it to contain %q", rep.Reason, want)
		}
	}
	if len(rep.Metrics) != 1 || rep.Metrics[0].Name != "failures" || rep.Metrics[0].Outcome != "regression" {
		t.Errorf("metrics %+v, want failures alone, a regression", rep.Metrics)
	}
	if len(rep.Runs) != 10 {
		t.Fatalf("%d runs, want the 5 rounds' 10", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if r.Valid || r.ServiceFailed != (r.Side == "head") {
			t.Errorf("%s/%d: valid %v, service failed %v (%q); want only head's service failed", r.Side, r.Pair, r.Valid, r.ServiceFailed, r.InvalidReasons)
		}
	}
	if l := leftovers(t); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// TestGateCPULimitThrottlesWithHints runs the service at a tenth of a core
// under a load that needs more, with GOMAXPROCS forced to 2: the cgroup
// throttles it, and both counter hints name it, whatever the verdict.
// Nearer the load's need the share of throttled periods depends on the
// machine's state (at 100m and 200 req/s anything from 5% to 90%), so the
// load is well past it. There the service answers some requests with
// errors and the rounds are often invalid (the gate stops after three in a
// row): the hints must show on such a gate too, since "throttled" is what a
// team needs to read when the gate could not measure, and an invalid
// measurement is never a regression.
func TestGateCPULimitThrottlesWithHints(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("CPU limits need cgroups (root)")
	}
	// A tenth of a core at 800 req/s: ~1.4 times the quota at the example's
	// ~175 µs/req, throttled in most periods. It was 30m at 200 req/s,
	// where every start, readiness check and profile crawled at 3% of a
	// core: 150 s for the same assertions.
	cfg := limitedExperiment("100m", "256Mi", 800)
	cfg = strings.Replace(cfg, `  ready_timeout:`, "  env: {GOMAXPROCS: \"2\"}\n  ready_timeout:", 1)
	g := runGateCommand(t, writeConfig(t, cfg), exampleService(t), regressedHead(t, ""))
	if g.report == nil || g.report.Verdict == "regression" {
		t.Fatalf("exit %d, want a report and no regression", g.code)
	}
	for _, r := range g.report.Runs {
		if r.Figures.Requests > 0 && r.Figures.ThrottledRatio < 0.1 {
			t.Errorf("%s run %d throttled in %.2f of periods at 100m, want at least a tenth", r.Side, r.Pair, r.Figures.ThrottledRatio)
		}
	}
	for _, rule := range []string{"cpu-throttling", "gomaxprocs-above-limit"} {
		if !hasHint(g.report, rule) {
			t.Errorf("no %s hint: %+v", rule, g.report.Hints)
		}
	}
	md, err := os.ReadFile(filepath.Join(g.out, "report.md"))
	if err != nil || !strings.Contains(string(md), "of its scheduling periods") {
		t.Errorf("report.md does not show the throttling hint (err %v)", err)
	}
}

func TestGateServiceExitingAtStartFailsFast(t *testing.T) {
	// Fast means long before the readiness deadline, not a fixed time: the
	// gate builds both sides first, which beside phase 1's builds in CI
	// takes tens of seconds (issue 58). A gate that waited for the service
	// would take the whole 600 s.
	cfg := writeConfig(t, strings.Replace(fmt.Sprintf(shortExperiment, "600s", "256Mi"), `"{addr}"]`, `"{addr}", "-no-such-flag"]`, 1))
	start := time.Now()
	g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, ""))
	if g.code != 4 || g.report == nil {
		t.Fatalf("exit %d, want 4", g.code)
	}
	if elapsed := time.Since(start); elapsed > 300*time.Second {
		t.Errorf("took %v; a service dying at start must not wait for the 600s readiness timeout", elapsed)
	}
	first := g.report.Runs[0]
	if !strings.Contains(first.Exit.StderrTail, "no-such-flag") || !strings.Contains(g.report.Reason, "exited during start-up") {
		t.Errorf("report lacks the cause: reason %q, stderr %q", g.report.Reason, first.Exit.StderrTail)
	}
}

func TestGateServiceNeverReadyTimesOut(t *testing.T) {
	cfg := writeConfig(t, strings.Replace(fmt.Sprintf(shortExperiment, "2s", "256Mi"), "  ready_timeout:", "  ready: /not-a-health-check\n  ready_timeout:", 1))
	g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, ""))
	if g.code != 4 || g.report == nil {
		t.Fatalf("exit %d, want 4", g.code)
	}
	if !strings.Contains(g.report.Reason, "did not become ready within 2s") || !strings.Contains(g.report.Reason, "404") {
		t.Errorf("reason %q does not explain the timeout", g.report.Reason)
	}
}

func TestGateBuildFailureIsInfrastructureError(t *testing.T) {
	head := regressedHead(t, "")
	main := filepath.Join(head, "cmd", "server", "main.go")
	src, _ := os.ReadFile(main)
	if err := os.WriteFile(main, append(src, []byte("\nfunc broken() { undefinedHelper() }\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	g := runGateCommand(t, writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi")), exampleService(t), head)
	if g.code != 3 || g.report == nil || g.report.Verdict != "error" {
		t.Fatalf("exit %d, want 3 with verdict error", g.code)
	}
	if !strings.Contains(g.report.Build.Error, "undefined: undefinedHelper") {
		t.Errorf("build.error lacks the compiler output: %q", g.report.Build.Error)
	}
}

func TestGateConfigErrorExitsBeforeBuilding(t *testing.T) {
	cfg := writeConfig(t, "version: 1\nservice:\n  package: ./cmd/server\n  args: [\"-addr\", \"{addr}\"]\nresources:\n  cpu: fast\n")
	start := time.Now()
	g := runGateCommand(t, cfg, exampleService(t), exampleService(t))
	if g.code != 2 || !strings.Contains(g.stderr, "perfgate.yml:6: resources.cpu: \"fast\"") {
		t.Errorf("exit %d, stderr %q", g.code, g.stderr)
	}
	// What it printed, not how long it took, says whether it built: a
	// slow machine takes seconds to start perfgate at all (issue 58), and
	// a build of the example service takes minutes there.
	if took := time.Since(start); took > 60*time.Second || strings.Contains(g.stdout, "building") {
		t.Errorf("a config error must stop perfgate before it builds anything (took %v, stdout %q)", took, g.stdout)
	}
}

func TestGateServiceWithoutPprofStillMeasuresLoadAndCPU(t *testing.T) {
	cfg := writeConfig(t, strings.Replace(fmt.Sprintf(shortExperiment, "30s", "256Mi"), "  ready_timeout:", "  pprof: /not-pprof\n  ready_timeout:", 1))
	g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, ""))
	// Unchanged code: a verdict on load and CPU figures alone, exit 0.
	if g.code != 0 || g.report == nil || (g.report.Verdict != "pass" && g.report.Verdict != "inconclusive") {
		t.Fatalf("exit %d, want a pass or inconclusive verdict on load and CPU figures alone", g.code)
	}
	for _, r := range g.report.Runs {
		if !strings.Contains(r.ProfilesUnavailable, "no pprof at /not-pprof") || len(r.Profiles) != 0 {
			t.Errorf("run %s/%d: profiles_unavailable %q, %d profiles", r.Side, r.Pair, r.ProfilesUnavailable, len(r.Profiles))
		}
		f := r.Figures
		if f.CPUMicrosPerRequest <= 0 || f.Requests == 0 || f.LatencyP99Ms <= 0 || f.AllocsPerRequest != nil {
			t.Errorf("run %s/%d figures %+v: want CPU and load, no allocations", r.Side, r.Pair, f)
		}
	}
}

func TestGateBaseAsGitRefUsesATemporaryWorktree(t *testing.T) {
	head := exampleService(t)
	g := runGateCommand(t, writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi")), "HEAD", head)
	if g.code != 0 || g.report == nil {
		t.Fatalf("exit %d", g.code)
	}
	b := g.report.Build.Base
	if b.Revision == "" || !strings.Contains(b.Source, "perfgate-base-") || !strings.HasSuffix(b.Source, filepath.Join("tree", "examples", "service")) {
		t.Errorf("base build %+v: want the HEAD commit from a temporary worktree", b)
	}
	if _, err := os.Stat(b.Source); !os.IsNotExist(err) {
		t.Errorf("worktree %s still exists after the gate", b.Source)
	}
	list, _ := exec.Command("git", "-C", head, "worktree", "list").Output()
	if strings.Contains(string(list), "perfgate-base-") {
		t.Errorf("git still lists the worktree:\n%s", list)
	}
}
