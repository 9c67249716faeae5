package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// readKind names what a reading of a service is for: the retained figures
// (the settling goroutine count and the forced GCs), MemStats, or the
// counters.
func readKind(what string) string {
	switch {
	case what == "counters":
		return "counters"
	case strings.HasPrefix(what, "/debug/pprof/goroutine?debug=1"), strings.HasPrefix(what, "/debug/pprof/heap?gc=1"):
		return "retained"
	case strings.HasPrefix(what, "/debug/pprof/heap?debug=1"):
		return "memstats"
	}
	return ""
}

// TestEveryReadingFollowsTheRoundsOrder: in every duet round, each kind of
// reading is taken for the side that started first, then for the other,
// at the window's start and again at its end; never base first in every
// round. A fixed order gave one side's intervals a later end in every
// round, a bias that no number of rounds averages away.
func TestEveryReadingFollowsTheRoundsOrder(t *testing.T) {
	before := runtime.NumGoroutine()
	defer noGoroutinesLeft(t, before)
	tg := newFake(true)
	tg.LogReads = true
	l := runLoop(context.Background(), t, tg, duetConfig(t, 4, 4, 0), true, nil)
	if l.err != nil {
		t.Fatal(l.err)
	}
	first := map[int]string{}
	for _, r := range l.runs {
		if r.Duet.StartedFirst {
			first[r.Pair] = r.Side
		}
	}
	headFirst := 0
	for _, side := range first {
		if side == Head {
			headFirst++
		}
	}
	if headFirst == 0 || headFirst == len(first) {
		t.Fatalf("the seed drew the same side first in all %d rounds; the test needs both orders", len(first))
	}
	// Per round and kind, the sides in the order read, runs of one side
	// counted once (the retained figures take several requests).
	order := map[string][]string{}
	for _, read := range tg.Reads() {
		kind := readKind(read.What)
		if kind == "" {
			continue
		}
		key := fmt.Sprintf("round %d %s", read.Pair, kind)
		if sides := order[key]; len(sides) == 0 || sides[len(sides)-1] != read.Side {
			order[key] = append(sides, read.Side)
		}
	}
	for round, f := range first {
		other := map[string]string{Base: Head, Head: Base}[f]
		for _, kind := range []string{"counters", "memstats", "retained"} {
			key := fmt.Sprintf("round %d %s", round, kind)
			sides := order[key]
			if len(sides) < 4 || len(sides)%2 != 0 {
				t.Errorf("%s: sides read %v, want %s and %s at both edges", key, sides, f, other)
				continue
			}
			for i, side := range sides {
				if want := []string{f, other}[i%2]; side != want {
					t.Errorf("%s: sides read %v; %s started first, so every edge must read %s first", key, sides, f, f)
					break
				}
			}
		}
	}
}

// TestEveryRoundRunsLayoutsOfItsOwn: with Options.Layout, every round's
// base and head are linked with a layout of the round's own, drawn from
// the gate's seed (so that --seed replays them) and recorded with each
// run: one seed for both sides of a round when layouts are paired, one
// per side when they are independent.
func TestEveryRoundRunsLayoutsOfItsOwn(t *testing.T) {
	for _, pairing := range config.LayoutPairings {
		t.Run(pairing, func(t *testing.T) { everyRoundRunsLayoutsOfItsOwn(t, pairing) })
	}
	for round := 1; round <= 100; round++ {
		for _, owner := range []string{Base, Head, "both sides"} {
			if s := layoutSeed(7, round, owner); s == 0 || s >= 1<<63 {
				t.Fatalf("layoutSeed(7, %d, %s) = %d: the linker takes an int64 above 0", round, owner, s)
			}
		}
	}
}

func everyRoundRunsLayoutsOfItsOwn(t *testing.T, pairing string) {
	before := runtime.NumGoroutine()
	defer noGoroutinesLeft(t, before)
	type link struct {
		seed uint64
		side string
	}
	var mu sync.Mutex
	linked := map[link]bool{}
	sidesOf := map[uint64][]string{}
	layout := func(_ context.Context, req LayoutRequest) error {
		side, seed := req.Side, req.Seed
		mu.Lock()
		defer mu.Unlock()
		if linked[link{seed, side}] {
			return fmt.Errorf("seed %d linked twice for %s", seed, side)
		}
		linked[link{seed, side}] = true
		sidesOf[seed] = append(sidesOf[seed], side)
		// The fake target tells the sides by the binary's base name.
		return os.WriteFile(req.Dst, []byte("a "+side+" layout"), 0o755)
	}
	cfg := duetConfig(t, 3, 3, 1)
	cfg.LayoutPairing = pairing
	ran := 0
	for _, seed := range []uint64{7, 8} {
		// Without pprof: the layouts are the point, not the readings.
		runs, err := Run(context.Background(), Options{
			Config: cfg, Target: newFake(false), Binaries: fakeBinaries(t), OutDir: t.TempDir(), Seed: seed, Duet: true,
			GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard, Layout: layout,
			Record: func(report.Run) error { return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		// A round the busy machine invalidated (a saturated generator or a
		// rate below min_rate under the race detector) may be replaced by
		// one more: every run must still have had a layout of its own.
		if len(runs) < 8 || len(runs)%2 != 0 {
			t.Fatalf("seed %d: %d runs, want at least 3 gating and 1 profile round of 2", seed, len(runs))
		}
		ran += len(runs)
		for _, r := range runs {
			if want := layoutSeed(seed, r.Pair, seedOwner(cfg, r.Pair, r.Side)); r.LayoutSeed != want || !linked[link{want, r.Side}] {
				t.Errorf("seed %d, %s of round %d: layout seed %d, want %d linked for it (linked: %v)", seed, r.Side, r.Pair, r.LayoutSeed, want, linked)
			}
		}
	}
	if len(linked) != ran {
		t.Errorf("%d relinks, want %d (one per run of 2 gates)", len(linked), ran)
	}
	pairedSeeds := 0
	for seed, sides := range sidesOf {
		if len(sides) == 2 {
			pairedSeeds++
		} else if pairing == "paired" {
			t.Errorf("paired seed %d linked for %v alone, want base and head of one round", seed, sides)
		}
	}
	// Alternate pairs the odd rounds: 2 of each gate's 4 or more.
	if rounds := ran / 2; pairing == "paired" && pairedSeeds != rounds || pairing == "independent" && pairedSeeds != 0 ||
		pairing == "alternate" && (pairedSeeds < rounds/2-1 || pairedSeeds > rounds/2+1) {
		t.Errorf("layout_pairing %s: %d of %d rounds linked both sides from one seed", pairing, pairedSeeds, rounds)
	}
}

// TestInterruptedWhileLinkingIsAnInterruption: an interruption kills the
// linker of the next round's layouts; the experiment must end as
// interrupted, never as a failed build.
func TestInterruptedWhileLinkingIsAnInterruption(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := duetConfig(t, 3, 3, 0)
	layout := func(_ context.Context, req LayoutRequest) error {
		if req.Seed == layoutSeed(7, 2, seedOwner(cfg, 2, req.Side)) {
			cancel()
			return errors.New("building " + req.Side + " failed: signal: killed")
		}
		return os.WriteFile(req.Dst, []byte("a "+req.Side+" layout"), 0o755)
	}
	runs, err := Run(ctx, Options{
		Config: cfg, Target: newFake(false), Binaries: fakeBinaries(t), OutDir: t.TempDir(), Seed: 7, Duet: true,
		GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard, Layout: layout,
		Record: func(report.Run) error { return nil },
	})
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "failed") {
		t.Fatalf("err = %v, want the interruption itself", err)
	}
	if len(runs) != 2 {
		t.Errorf("%d runs, want round 1's two kept", len(runs))
	}
}
