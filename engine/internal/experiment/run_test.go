package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// The experiment loop on targettest.Fake: services that are loopback HTTP
// servers in this process, each request costing base 100 µs and head
// 110 µs of CPU. The sequential experiments are attacked by the fake's
// synthetic load and take milliseconds; the duets by perfgate's real
// load generator, the only way to test the real pairing, over short
// windows.

// newFake is the fake target; pprof makes its services answer pprof (the
// duets, which check the retained figures and profiles).
func newFake(pprof bool) *targettest.Fake {
	return &targettest.Fake{Pprof: pprof, CPUPerRequest: map[string]time.Duration{Base: 100 * time.Microsecond, Head: 110 * time.Microsecond}}
}

// loop is one experiment on a fake target and what it recorded.
type loop struct {
	runs     []report.Run
	recorded []report.Run
	err      error
	began    time.Time
	took     time.Duration
}

// runLoop runs an experiment of minPairs to maxPairs on tg, a duet or
// sequential pairs, with cfg's windows.
func runLoop(ctx context.Context, t *testing.T, tg *targettest.Fake, cfg *config.Config, duet bool, enough func([]report.Run) bool) loop {
	t.Helper()
	return runLoopWith(ctx, t, tg, cfg, duet, enough, nil)
}

// runLoopWith is runLoop with the options changed by set (when not nil).
func runLoopWith(ctx context.Context, t *testing.T, tg *targettest.Fake, cfg *config.Config, duet bool, enough func([]report.Run) bool, set func(*Options)) loop {
	t.Helper()
	dir := t.TempDir()
	bins := map[string]string{Base: filepath.Join(dir, Base), Head: filepath.Join(dir, Head)}
	for _, b := range bins {
		if err := os.WriteFile(b, []byte("not a real binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var l loop
	began := time.Now()
	l.began = began
	o := Options{
		Config: cfg, Target: tg, Binaries: bins, OutDir: t.TempDir(), Seed: 7, Duet: duet,
		GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard, Enough: enough,
		Record: func(r report.Run) error { l.recorded = append(l.recorded, r); return nil },
	}
	if set != nil {
		set(&o)
	}
	l.runs, l.err = Run(ctx, o)
	l.took = time.Since(began)
	return l
}

// sequentialConfig is pairs of 1 s windows at 100 requests/s, which the
// synthetic load sends at once; no profiles, whose capture waits for the
// window's real seconds.
// testGeneratorCPUs is the CPUs the tests' load generator has: all of
// them. It is not pinned apart as in a real run, and the CPU time it is
// judged by is the whole test process's, the fake services' included, so
// against one CPU the race detector's slower requests counted as a
// saturated generator (107% and 123% in CI runs) and voided rounds.
var testGeneratorCPUs = runtime.NumCPU()

func sequentialConfig(t *testing.T, pairs int) *config.Config {
	t.Helper()
	return parseConfig(t, pairs, `
service: {package: ., args: ["-addr", "{addr}"]}
experiment: sequential
load: {rate: 100, warmup: 0s, duration: 1s, requests: ["GET /a"]}
profiles: []
validity: {min_cpu_samples: 0, max_generator_cpu: 100%}
`)
}

// duetConfig is rounds of 100 ms windows at 500 requests/s to each side
// (50 requests), shorter than a user may configure, with the goroutine
// profile (a snapshot) in the profile rounds. A request more or less at
// a window's edge is 2% of so short a window, hence min_rate.
func duetConfig(t *testing.T, minRounds, maxRounds, profileRounds int) *config.Config {
	t.Helper()
	cfg := parseConfig(t, minRounds, `
service: {package: ., args: ["-addr", "{addr}"]}
load: {rate: 500, warmup: 0s, duration: 1s, requests: ["GET /a", "GET /b"]}
profiles: [goroutine]
validity: {min_cpu_samples: 0, max_generator_cpu: 100%, min_rate: 90%}
`)
	cfg.Load.Duration = config.Duration(100 * time.Millisecond)
	cfg.MaxPairs, cfg.ProfileRounds = maxRounds, profileRounds
	return cfg
}

func parseConfig(t *testing.T, pairs int, yml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("fake.yml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pairs, cfg.MaxPairs = pairs, pairs
	return cfg
}

// shortReapGrace makes a failed counter read count as a failure at once
// instead of after the second a dying process is given to be reaped.
func shortReapGrace(t *testing.T) {
	saved := reapGrace
	reapGrace = 10 * time.Millisecond
	t.Cleanup(func() { reapGrace = saved })
}

// noGoroutinesLeft fails t when, within a second, the goroutines have
// not fallen back to before's number: an experiment that returned must
// have stopped its attacks, samplers, profile fetches and services.
func noGoroutinesLeft(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines a second after Run returned, %d before it began:\n%s", runtime.NumGoroutine(), before, buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// invalidOnes names the invalid runs and why, for a failure message.
func invalidOnes(runs []report.Run) string {
	var b strings.Builder
	for _, r := range runs {
		if !r.Valid {
			fmt.Fprintf(&b, "\n%s/%d: %q", r.Side, r.Pair, r.InvalidReasons)
		}
	}
	return b.String()
}

func validRounds(runs []report.Run) int {
	n := 0
	for _, r := range runs {
		if r.Side == Head && r.Compared() {
			n++
		}
	}
	return n
}

// sameRuns fails t unless Record was handed every run Run returned, as
// it measured them: results reach the disk before anything can fail.
func sameRuns(t *testing.T, l loop) {
	t.Helper()
	if len(l.recorded) != len(l.runs) {
		t.Fatalf("%d runs recorded, %d returned; every run is recorded as it is measured", len(l.recorded), len(l.runs))
	}
	for i := range l.runs {
		if l.recorded[i].Side != l.runs[i].Side || l.recorded[i].Pair != l.runs[i].Pair || l.recorded[i].Order != i+1 {
			t.Errorf("recorded run %d is %s/%d (order %d), returned %s/%d", i, l.recorded[i].Side, l.recorded[i].Pair, l.recorded[i].Order, l.runs[i].Side, l.runs[i].Pair)
		}
	}
}

func TestLoopMeasuresEveryPair(t *testing.T) {
	l := runLoop(context.Background(), t, newFake(false), sequentialConfig(t, 3), false, nil)
	if l.err != nil {
		t.Fatal(l.err)
	}
	sameRuns(t, l)
	if len(l.runs) != 6 {
		t.Fatalf("%d runs, want 3 pairs of 2", len(l.runs))
	}
	for _, r := range l.runs {
		want := map[string]float64{Base: 100, Head: 110}[r.Side]
		if !r.Valid || r.Figures.Requests != 100 || r.Figures.CPUMicrosPerRequest != want {
			t.Errorf("%s/%d: valid %v %q, %d requests at %.1f µs CPU/req; want valid, 100 at %g", r.Side, r.Pair, r.Valid, r.InvalidReasons, r.Figures.Requests, r.Figures.CPUMicrosPerRequest, want)
		}
	}
}

func TestLoopReplacesAPairWhoseServiceCrashedMidWindow(t *testing.T) {
	tg := newFake(false)
	tg.Faults = []targettest.Fault{{Side: Head, Pair: 2, AtRequest: 50, Kind: targettest.Crash}}
	l := runLoop(context.Background(), t, tg, sequentialConfig(t, 3), false, nil)
	if l.err != nil {
		t.Fatal(l.err)
	}
	sameRuns(t, l)
	if len(l.runs) != 8 || validRounds(l.runs) != 3 {
		t.Fatalf("%d runs, %d valid pairs; want 4 pairs, the crashed one replaced", len(l.runs), validRounds(l.runs))
	}
	for _, r := range l.runs {
		crashed := r.Side == Head && r.Pair == 2
		if crashed != !r.Valid {
			t.Errorf("%s/%d: valid %v %q; only head's run of pair 2 is invalid", r.Side, r.Pair, r.Valid, r.InvalidReasons)
		}
		if !crashed {
			continue
		}
		if want := "crashed during the run: signal SIGSEGV"; len(r.InvalidReasons) != 1 || r.InvalidReasons[0] != want {
			t.Errorf("head/2: reasons %q, want only %q", r.InvalidReasons, want)
		}
		if !r.Exit.ExitedOnItsOwn || r.Exit.StderrTail == "" {
			t.Errorf("head/2: exit %+v; want its own exit with the end of its stderr", r.Exit)
		}
		if r.Load.Requests != 100 || r.Load.ErrorRate < 0.4 {
			t.Errorf("head/2: %d requests, error rate %.2f; want the 100 sent, half after its death failed", r.Load.Requests, r.Load.ErrorRate)
		}
	}
}

// TestServiceGoneBeforeItsExitIsReportedIsACrash: docker reaps an
// OOM-killed container's process at once, and on a busy machine reports
// the container's exit seconds later. A counter read that finds the
// process gone (no /proc entry) is the service's death, an invalid run,
// not a failed measurement that ends the experiment as an infrastructure
// error (CI, 2026-11-29: TestDockerGateTinyMemoryIsInvalidOOM exited 3,
// "open /proc/23666/stat: no such file or directory", with the next
// round's counters read at window start).
func TestServiceGoneBeforeItsExitIsReportedIsACrash(t *testing.T) {
	shortReapGrace(t)
	tg := newFake(false)
	// Head vanishes during its first request of pair 2: its counters at
	// the window's start find no process, and the target reports the
	// exit only VanishedExitAfter later, well after reapGrace.
	tg.Faults = []targettest.Fault{{Side: Head, Pair: 2, AtRequest: 1, Kind: targettest.Vanish}}
	l := runLoop(context.Background(), t, tg, sequentialConfig(t, 3), false, nil)
	if l.err != nil {
		t.Fatalf("err %v; a service whose process is gone is an invalid run, not an error of the experiment", l.err)
	}
	found := false
	for _, r := range l.runs {
		if r.Side != Head || r.Pair != 2 {
			continue
		}
		found = true
		if r.Valid {
			t.Errorf("head/2 valid; want it invalid, its service gone")
		}
		for _, reason := range r.InvalidReasons {
			if strings.HasPrefix(reason, "measurement failed") {
				t.Errorf("head/2: %q; want the service's death, not a failed measurement", reason)
			}
		}
	}
	if !found {
		t.Fatalf("no head/2 run: %+v", l.runs)
	}
}

func TestLoopEndsWhenCountersFailWithTheRunKeptInvalid(t *testing.T) {
	shortReapGrace(t)
	tg := newFake(false)
	// The window's last request: the counters fail at its end, not
	// halfway.
	tg.Faults = []targettest.Fault{{Side: Head, Pair: 2, AtRequest: 100, Kind: targettest.CountersFail}}
	l := runLoop(context.Background(), t, tg, sequentialConfig(t, 3), false, nil)
	if !errors.Is(l.err, targettest.ErrCountersGone) || !strings.Contains(l.err.Error(), "read counters at window end") {
		t.Fatalf("err %v; want the failed counter read at the window's end", l.err)
	}
	var gaveUp *GaveUp
	if _, started := IsStartFailure(l.err); started || errors.As(l.err, &gaveUp) || errors.Is(l.err, context.Canceled) {
		t.Fatalf("err %v (%T); a counter that cannot be read is an infrastructure error, not an invalid service", l.err, l.err)
	}
	sameRuns(t, l)
	last := l.runs[len(l.runs)-1]
	if last.Side != Head || last.Pair != 2 || last.Valid || len(last.InvalidReasons) != 1 ||
		!strings.HasPrefix(last.InvalidReasons[0], "measurement failed: read counters at window end:") {
		t.Fatalf("last run %s/%d valid %v %q; want head/2 invalid because its counters failed", last.Side, last.Pair, last.Valid, last.InvalidReasons)
	}
	if last.Load.Requests != 100 {
		t.Errorf("head/2: %d requests in its load summary; what was sent is kept", last.Load.Requests)
	}
	if last.Exit.ExitedOnItsOwn {
		t.Errorf("head/2: exit %+v; the service lived on and was stopped", last.Exit)
	}
	if validRounds(l.runs) != 1 {
		t.Errorf("%d valid pairs kept, want pair 1", validRounds(l.runs))
	}
}

func TestLoopGivesUpAfterThreeInvalidPairsInARow(t *testing.T) {
	tg := newFake(false)
	for pair := 1; pair <= 3; pair++ {
		tg.Faults = append(tg.Faults, targettest.Fault{Side: Head, Pair: pair, AtRequest: 10, Kind: targettest.Crash})
	}
	l := runLoop(context.Background(), t, tg, sequentialConfig(t, 5), false, nil)
	var gaveUp *GaveUp
	if !errors.As(l.err, &gaveUp) || gaveUp.Side != Head || gaveUp.Reason != "crashed during the run: signal SIGSEGV" {
		t.Fatalf("err %v; want a GaveUp on head's crashes", l.err)
	}
	sameRuns(t, l)
	if len(l.runs) != 6 || tg.Started() != 6 {
		t.Errorf("%d runs of %d services started; want the 3 pairs kept and no fourth started", len(l.runs), tg.Started())
	}
	if validRounds(l.runs) != 0 {
		t.Errorf("%d valid pairs; none can be compared", validRounds(l.runs))
	}
}

func TestLoopInterruptedMidWindowReturnsWhatItMeasured(t *testing.T) {
	// A window of 100 requests in halves of 50: interrupted at the end of
	// the first half, and in the second, where both halves' requests are
	// what the service was sent.
	for _, at := range []int64{50, 75} {
		t.Run(fmt.Sprintf("at request %d", at), func(t *testing.T) {
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tg := newFake(false)
			tg.Interrupt = cancel
			tg.Faults = []targettest.Fault{{Side: Head, Pair: 2, AtRequest: at, Kind: targettest.Interrupt}}
			l := runLoop(ctx, t, tg, sequentialConfig(t, 5), false, nil)
			if !errors.Is(l.err, context.Canceled) {
				t.Fatalf("err %v, want the interruption", l.err)
			}
			sameRuns(t, l)
			last := l.runs[len(l.runs)-1]
			if last.Side != Head || last.Pair != 2 || last.Valid || len(last.InvalidReasons) != 1 || last.InvalidReasons[0] != "interrupted before the window ended" {
				t.Fatalf("last run %s/%d valid %v %q; want head/2 interrupted", last.Side, last.Pair, last.Valid, last.InvalidReasons)
			}
			if last.Load.Requests != uint64(at) {
				t.Errorf("head/2: %d requests; the %d sent before the interruption are kept", last.Load.Requests, at)
			}
			if validRounds(l.runs) != 1 || tg.Started() > 4 {
				t.Errorf("%d valid pairs after %d services; want pair 1 kept and nothing started after the interruption", validRounds(l.runs), tg.Started())
			}
			noGoroutinesLeft(t, before)
		})
	}
}

func TestDuetStopsWhenDecidedThenProfiles(t *testing.T) {
	asked := 0
	cfg := duetConfig(t, 2, 6, 1)
	l := runLoop(context.Background(), t, newFake(true), cfg, true, func(runs []report.Run) bool {
		asked++
		return validRounds(runs) >= 3
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	sameRuns(t, l)
	if got := validRounds(l.runs); got != 3 || asked != 2 {
		t.Fatalf("%d valid rounds after asking %d times; want to stop at 3, asked from the minimum of 2", got, asked)
	}
	if len(l.runs) != 8 {
		t.Fatalf("%d runs, want 3 gating rounds and 1 profile round of 2 runs each; invalid: %s", len(l.runs), invalidOnes(l.runs))
	}
	// The profile round's load is what profilePlan makes of the gating
	// rounds' CPU use: raised on a quiet machine, less (down to 1x) under the
	// race detector's slower load generator.
	_, factor := profilePlan(cfg, l.runs)
	for _, r := range l.runs {
		f := r.Figures
		// A profile round runs at its raised load (profilePlan), with fine
		// heap sampling.
		want := 50.0
		if r.ProfileRound && r.Duet != nil {
			// Rounded: 50 × 2.3 × 2 is 229.99999999999997 in floats, and
			// the generator sends its 230.
			want = math.Round(want * r.Duet.ProfileLoad * profileWindows)
			if r.Duet.ProfileLoad != factor || r.Duet.MemProfileRate != profileMemRate {
				t.Errorf("%s/%d: profile round at %gx the load (plan: %gx), memprofilerate %d", r.Side, r.Pair, r.Duet.ProfileLoad, factor, r.Duet.MemProfileRate)
			}
		}
		if r.Duet == nil || float64(f.Requests) < 0.9*want || float64(f.Requests) > want || r.Seconds == nil {
			t.Errorf("%s/%d: duet %v, %d requests, %d seconds sampled; want a duet run with about %.0f requests (100 ms at 500/s, times the profile round's load and window)", r.Side, r.Pair, r.Duet, f.Requests, len(r.Seconds), want)
		}
		if r.ProfileRound != (r.Pair == 4) || (len(r.Profiles) > 0) != r.ProfileRound {
			t.Errorf("%s/%d: profile round %v with %d profiles; only round 4, after the gating ones, profiles", r.Side, r.Pair, r.ProfileRound, len(r.Profiles))
		}
		if want := map[string]float64{Base: 100, Head: 110}[r.Side]; f.CPUMicrosPerRequest != want {
			t.Errorf("%s/%d: %.1f µs CPU/req, want %g", r.Side, r.Pair, f.CPUMicrosPerRequest, want)
		}
		if f.GoroutinesRetainedPer1k == nil || f.HeapRetainedBytesPer1k == nil {
			t.Errorf("%s/%d: no retained goroutines or heap", r.Side, r.Pair)
		}
	}
}

func TestDuetReplacesARoundWhoseServiceCrashedMidWindow(t *testing.T) {
	tg := newFake(false)
	tg.Faults = []targettest.Fault{{Side: Head, Pair: 2, AtRequest: 25, Kind: targettest.Crash}}
	l := runLoop(context.Background(), t, tg, duetConfig(t, 3, 3, 0), true, nil)
	if l.err != nil {
		t.Fatal(l.err)
	}
	sameRuns(t, l)
	if got := validRounds(l.runs); got != 3 || len(l.runs) != 8 {
		t.Fatalf("%d valid rounds in %d runs; want 3 valid of 4 rounds (round 2 replaced)", got, len(l.runs))
	}
	for _, r := range l.runs {
		if r.Pair != 2 {
			continue
		}
		want := map[string]string{
			Head: "crashed during the run: signal SIGSEGV",
			Base: "the head side of this round is invalid: crashed during the run: signal SIGSEGV",
		}[r.Side]
		if r.Valid || r.InvalidReasons[0] != want {
			t.Errorf("%s/2: valid %v, reasons %q; want invalid: %s", r.Side, r.Valid, r.InvalidReasons, want)
		}
	}
}

func TestDuetGivesUpAfterThreeInvalidRoundsInARow(t *testing.T) {
	tg := newFake(false)
	for round := 1; round <= 3; round++ {
		tg.Faults = append(tg.Faults, targettest.Fault{Side: Head, Pair: round, AtRequest: 25, Kind: targettest.Crash})
	}
	l := runLoop(context.Background(), t, tg, duetConfig(t, 3, 3, 1), true, nil)
	var gaveUp *GaveUp
	if !errors.As(l.err, &gaveUp) || gaveUp.Side != "duet" || !strings.Contains(l.err.Error(), "3 duet rounds in a row were invalid") {
		t.Fatalf("err %v, want a GaveUp on duet rounds", l.err)
	}
	sameRuns(t, l)
	if len(l.runs) != 6 || validRounds(l.runs) != 0 {
		t.Errorf("%d runs, %d valid rounds; want the 3 invalid rounds kept and no profile round", len(l.runs), validRounds(l.runs))
	}
}

// The real load generator must stop at an interruption, not at the end
// of its window: this one is 5 s long, interrupted after 50 ms.
func TestDuetInterruptedMidWindowReturnsPromptly(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tg := newFake(true)
	// The time from the interruption, not from the start: the readings
	// before the window wait for the goroutine count to settle, up to a
	// second per side.
	var interrupted time.Time
	tg.Interrupt = func() { interrupted = time.Now(); cancel() }
	tg.Faults = []targettest.Fault{{Side: Head, Pair: 1, AtRequest: 25, Kind: targettest.Interrupt}}
	cfg := duetConfig(t, 3, 3, 1)
	cfg.Load.Duration = config.Duration(5 * time.Second)
	l := runLoop(ctx, t, tg, cfg, true, nil)
	if !errors.Is(l.err, context.Canceled) {
		t.Fatalf("err %v, want the interruption", l.err)
	}
	if after := l.took - interrupted.Sub(l.began); after > 2*time.Second {
		t.Errorf("Run returned %v after the interruption, 50 ms into a 5 s window; it must end at once", after.Round(time.Millisecond))
	}
	sameRuns(t, l)
	if len(l.runs) != 2 || tg.Started() != 2 {
		t.Fatalf("%d runs of %d services; want round 1's two and no other started", len(l.runs), tg.Started())
	}
	for _, r := range l.runs {
		if r.Valid || r.InvalidReasons[0] != "interrupted before the window ended" || r.Load.Requests == 0 || r.Load.Requests > 100 {
			t.Errorf("%s/%d: valid %v %q, %d requests; want interrupted, with the requests sent before it kept", r.Side, r.Pair, r.Valid, r.InvalidReasons, r.Load.Requests)
		}
	}
	noGoroutinesLeft(t, before)
}
