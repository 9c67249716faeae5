package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// gateOnFake measures and concludes a gate of sequential pairs on tg, a
// fake target attacked by synthetic load (milliseconds, no root), and
// returns the report as written to report.json and the results directory.
// prepare, if any, sets the invocation up before it measures.
func gateOnFake(t *testing.T, tg *targettest.Fake, pairs int, prepare ...func(*invocation)) (*report.Report, string) {
	t.Helper()
	cfg, err := config.Parse("perfgate.yml", []byte(`
service: {package: ., args: ["-addr", "{addr}"]}
experiment: sequential
layout: build   # the binaries are stand-ins, with no source to relink
load: {rate: 100, warmup: 0s, duration: 1s, requests: ["GET /a"]}
profiles: []
validity: {min_cpu_samples: 0, max_generator_cpu: 100%}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target, cfg.Pairs, cfg.MaxPairs = "fake", pairs, pairs
	dir, out := t.TempDir(), t.TempDir()
	binaries := map[string]string{}
	for _, side := range []string{experiment.Base, experiment.Head} {
		binaries[side] = filepath.Join(dir, side)
		if err := os.WriteFile(binaries[side], []byte("not a real binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g := newInvocation(report.ModeGate, cfg, out, []string{"perfgate", "gate"}, io.Discard, io.Discard)
	g.targets = Targets{"fake": func(*config.Config, cgroup.Limits, string) target.Target { return tg }}
	for _, p := range prepare {
		p(g)
	}
	_, _ = g.finish(g.measure(context.Background(), binaries, "", dir))
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var written report.Report
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatal(err)
	}
	return &written, out
}

func TestTargetCleanupWarningsReachTheReport(t *testing.T) {
	tg := &targettest.Fake{
		CPUPerRequest: map[string]time.Duration{experiment.Base: 100 * time.Microsecond, experiment.Head: 100 * time.Microsecond},
		CloseWarning:  "could not remove container 0123456789ab (docker rm: exit status 1)",
		CloseErr:      errors.New("delete namespace perfgate-0123abcd: the server is currently unable to handle the request"),
	}
	rep, _ := gateOnFake(t, tg, 2)
	for _, want := range []string{
		"could not remove container 0123456789ab (docker rm: exit status 1)",
		"cleaning up target fake: delete namespace perfgate-0123abcd: the server is currently unable to handle the request",
	} {
		if !slices.Contains(rep.Warnings, want) {
			t.Errorf("report.json's warnings %q lack %q", rep.Warnings, want)
		}
	}
	if rep.Verdict == report.Error {
		t.Errorf("verdict %s (%s); a cleanup failure does not change the result", rep.Verdict, rep.Reason)
	}
}

// A head that crashes in every pair is a regression, on failures alone:
// the gate measures verdict.FailureStreak pairs (8 at alpha 0.01 with a
// single look), keeps every run, and says how head failed.
func TestHeadCrashingInEveryPairIsARegressionWithTheRunsKept(t *testing.T) {
	tg := &targettest.Fake{CPUPerRequest: map[string]time.Duration{experiment.Base: 100 * time.Microsecond, experiment.Head: 300 * time.Microsecond}}
	for pair := 1; pair <= 12; pair++ {
		tg.Faults = append(tg.Faults, targettest.Fault{Side: experiment.Head, Pair: pair, AtRequest: 50, Kind: targettest.Crash})
	}
	rep, out := gateOnFake(t, tg, 5)
	// p is Holm's adjustment of 2^-8 in a family of two, failures and
	// errors; the errors after each crash make errors' own p far smaller,
	// so failures, second in Holm's order, keeps its own.
	want := "regression: failures: head's service failed in 8 of 8 rounds, base's in 0 (p=0.00391) (head: crashed during the run: signal SIGSEGV ×8); no other metric could be compared: invalid measurement: stopped early: 8 head runs in a row were invalid"
	if rep.Verdict != report.Regression || !strings.HasPrefix(rep.Reason, want) {
		t.Errorf("verdict %s (%s)\nwant %s (%s…)", rep.Verdict, rep.Reason, report.Regression, want)
	}
	if len(rep.Metrics) != 1 || rep.Metrics[0].Name != "failures" || rep.Complete {
		t.Errorf("metrics %+v, complete %v; want failures alone, and not complete", rep.Metrics, rep.Complete)
	}
	if len(rep.Runs) != 16 {
		t.Fatalf("report.json holds %d runs, want the 8 pairs measured", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if _, err := os.Stat(filepath.Join(out, r.Dir, "run.json")); err != nil {
			t.Errorf("%s/%d: %v; every run is written as it is measured", r.Side, r.Pair, err)
		}
		if r.Side == experiment.Head && (r.Valid || !r.ServiceFailed || r.Exit.Signal != "SIGSEGV") {
			t.Errorf("head/%d: valid %v, service failed %v, exit %+v; want invalid with its crash recorded", r.Pair, r.Valid, r.ServiceFailed, r.Exit)
		}
	}
}

// Three invalid pairs in a row that are not one side's failures end the
// gate as an invalid measurement, which counts each side's failures.
func TestThreeInvalidPairsInARowMakeTheGateInvalidWithTheRunsKept(t *testing.T) {
	tg := &targettest.Fake{CPUPerRequest: map[string]time.Duration{experiment.Base: 100 * time.Microsecond, experiment.Head: 100 * time.Microsecond}}
	for pair, side := range map[int]string{1: experiment.Head, 2: experiment.Base, 3: experiment.Head} {
		tg.Faults = append(tg.Faults, targettest.Fault{Side: side, Pair: pair, AtRequest: 50, Kind: targettest.Crash})
	}
	rep, out := gateOnFake(t, tg, 5)
	if rep.Verdict != report.Invalid || !strings.Contains(rep.Reason, "stopped early: 3 ") ||
		!strings.HasSuffix(rep.Reason, "; failures: head's service failed in 2 of 3 rounds, base's in 1 (p=0.5), not significant at gate.alpha") {
		t.Errorf("verdict %s (%s); want invalid, stopped after 3 pairs, with each side's failures", rep.Verdict, rep.Reason)
	}
	if len(rep.Metrics) != 1 || rep.Complete {
		t.Errorf("%d metrics, complete %v; an invalid gate carries failures alone and is not complete", len(rep.Metrics), rep.Complete)
	}
	if len(rep.Runs) != 6 {
		t.Fatalf("report.json holds %d runs, want the 3 pairs measured", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if _, err := os.Stat(filepath.Join(out, r.Dir, "run.json")); err != nil {
			t.Errorf("%s/%d: %v; every run is written as it is measured", r.Side, r.Pair, err)
		}
	}
}
