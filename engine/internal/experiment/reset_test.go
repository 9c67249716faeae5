package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/reset"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// fakeReset counts its calls, notes how many services had started at each,
// writes a line to its log, and fails on the calls failOn names (0 fails
// every call).
type fakeReset struct {
	tg      *targettest.Fake
	failOn  map[int]bool
	calls   int
	started []int
}

func (f *fakeReset) run(_ context.Context, log io.Writer) error {
	f.calls++
	f.started = append(f.started, f.tg.Started())
	fmt.Fprintf(log, "reset %d\n", f.calls)
	if f.failOn[f.calls] || f.failOn[0] {
		return &reset.Failure{Reason: "failed after 5ms: psql exit status 3", Tail: `ERROR:  relation "orders" does not exist`}
	}
	return nil
}

// fakeBinaries are files for the fake target to "run".
func fakeBinaries(t *testing.T) map[string]string {
	dir := t.TempDir()
	bins := map[string]string{Base: filepath.Join(dir, Base), Head: filepath.Join(dir, Head)}
	for _, b := range bins {
		if err := os.WriteFile(b, []byte("not a real binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bins
}

func TestResetRunsBeforeEveryRoundAndInvalidatesWhatItFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		duet bool
		cfg  func(t *testing.T) *config.Config
		// failOn are the reset calls that fail; resets, runs and valid
		// are how many resets ran, runs were kept and pairs were valid.
		failOn            map[int]bool
		resets, runs      int
		valid             int
		startedAtEachCall int // services started per reset, before the next reset
		gaveUp            bool
	}{
		{name: "sequential: one reset per run", cfg: func(t *testing.T) *config.Config { return sequentialConfig(t, 2) },
			resets: 4, runs: 4, valid: 2, startedAtEachCall: 1},
		{name: "sequential: a failed reset voids its pair, which is replaced", cfg: func(t *testing.T) *config.Config { return sequentialConfig(t, 2) },
			failOn: map[int]bool{2: true}, resets: 6, runs: 6, valid: 2, startedAtEachCall: 1},
		{name: "duet: one reset per round before both start, profile rounds too", duet: true, cfg: func(t *testing.T) *config.Config { return duetConfig(t, 2, 2, 1) },
			resets: 3, runs: 6, valid: 2, startedAtEachCall: 2},
		{name: "duet: a failed reset voids its round, which is replaced", duet: true, cfg: func(t *testing.T) *config.Config { return duetConfig(t, 2, 2, 0) },
			failOn: map[int]bool{1: true}, resets: 3, runs: 6, valid: 2, startedAtEachCall: 2},
		{name: "a reset that always fails gives up after three", duet: true, cfg: func(t *testing.T) *config.Config { return duetConfig(t, 2, 2, 0) },
			failOn: map[int]bool{0: true}, resets: 3, runs: 6, valid: 0, startedAtEachCall: 2, gaveUp: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := newFake(tc.duet)
			fr := &fakeReset{tg: tg, failOn: tc.failOn}
			out := t.TempDir()
			bins := fakeBinaries(t)
			var recorded []report.Run
			runs, err := Run(context.Background(), Options{
				Config: tc.cfg(t), Target: tg, Binaries: bins, OutDir: out, Seed: 7, Duet: tc.duet,
				GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard, Reset: fr.run,
				Record: func(r report.Run) error { recorded = append(recorded, r); return nil },
			})
			var gaveUp *GaveUp
			if tc.gaveUp != errors.As(err, &gaveUp) || !tc.gaveUp && err != nil {
				t.Fatalf("err %v, want a GaveUp: %v", err, tc.gaveUp)
			}
			if gaveUp != nil && !strings.HasPrefix(gaveUp.Reason, "service.reset before this run failed after 5ms") {
				t.Errorf("gave up because %q; want the reset named", gaveUp.Reason)
			}
			// A round the busy machine invalidated (a saturated generator
			// or a rate below min_rate under the race detector: a CI run
			// saw the generator at 107% of its CPU) is replaced like any
			// other, and its replacement has its own reset.
			replaced := replacedForTheMachine(runs)
			resetsPerReplacement := 2
			if tc.duet {
				resetsPerReplacement = 1
			}
			wantResets, wantRuns := tc.resets+replaced*resetsPerReplacement, tc.runs+replaced*2
			if fr.calls != wantResets || len(runs) != wantRuns || len(recorded) != len(runs) || validRounds(runs) != tc.valid {
				t.Fatalf("%d resets, %d runs (%d recorded), %d valid; want %d, %d, %d (%d replaced for the machine):%s",
					fr.calls, len(runs), len(recorded), validRounds(runs), wantResets, wantRuns, tc.valid, replaced, invalidOnes(runs))
			}
			// Each reset comes before the services it prepares: none of
			// them has started yet.
			for i, n := range fr.started {
				if n > i*tc.startedAtEachCall {
					t.Errorf("reset %d ran after %d services had started, want at most %d", i+1, n, i*tc.startedAtEachCall)
				}
			}
			for _, r := range runs {
				failed := len(r.InvalidReasons) > 0 && strings.HasPrefix(r.InvalidReasons[0], "service.reset")
				if failed && !strings.Contains(r.InvalidReasons[0], "(its output: "+filepath.Join(r.Dir, "reset.log")+`); last lines of its output:`+"\n"+`ERROR:  relation "orders" does not exist`) {
					t.Errorf("%s/%d: reason %q lacks the log's path and the output's end", r.Side, r.Pair, r.InvalidReasons[0])
				}
				if failed && r.Valid {
					t.Errorf("%s/%d is valid after a failed reset", r.Side, r.Pair)
				}
				if log, err := os.ReadFile(filepath.Join(out, r.Dir, "reset.log")); err != nil || !strings.HasPrefix(string(log), "reset ") {
					t.Errorf("%s/%d: reset.log %q (%v), want the reset's output", r.Side, r.Pair, log, err)
				}
			}
		})
	}
}

// replacedForTheMachine counts the rounds (pairs) invalid for a reason
// other than a reset: the machine's, since the fake services never fail
// in these tests. A profile round is never replaced (a CI run under the
// race detector saw one reach 560/s of its raised 650/s), so it does not
// count.
func replacedForTheMachine(runs []report.Run) int {
	n := 0
	for _, r := range runs {
		if r.Side != Head || r.Valid || r.ProfileRound {
			continue
		}
		if !slices.ContainsFunc(r.InvalidReasons, func(reason string) bool { return strings.Contains(reason, "service.reset") }) {
			n++
		}
	}
	return n
}

// TestResetStoppedByCancellationStopsTheExperiment: perfgate stopping
// during a reset ends the experiment with the cancellation, recording no
// invalid run.
func TestResetStoppedByCancellationStopsTheExperiment(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tg := newFake(false)
	var recorded []report.Run
	_, err := Run(ctx, Options{
		Config: sequentialConfig(t, 2), Target: tg, Binaries: fakeBinaries(t), OutDir: t.TempDir(), Seed: 7,
		GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard,
		Reset:  func(ctx context.Context, _ io.Writer) error { cancel(); return ctx.Err() },
		Record: func(r report.Run) error { recorded = append(recorded, r); return nil },
	})
	if !errors.Is(err, context.Canceled) || len(recorded) != 0 || tg.Started() != 0 {
		t.Errorf("err %v, %d runs recorded, %d services started; want the cancellation and nothing measured", err, len(recorded), tg.Started())
	}
}
