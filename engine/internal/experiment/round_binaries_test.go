package experiment

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// preloadingFake is the fake target with target.Preloads: it records the
// binaries preloaded, as a cluster would build and load their images.
type preloadingFake struct {
	*targettest.Fake
	mu        sync.Mutex
	preloaded []string
}

func (f *preloadingFake) Preload(_ context.Context, binary string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.preloaded = append(f.preloaded, filepath.Base(filepath.Dir(binary))+"/"+filepath.Base(binary))
	return nil
}

// countingLayout links a file per call and counts the calls per round
// directory (round-02, ...); fail, when set, fails the calls it says.
type countingLayout struct {
	mu    sync.Mutex
	calls map[string]int
	fail  func(round string) error
}

func (c *countingLayout) link(ctx context.Context, req LayoutRequest) error {
	side, dst := req.Side, req.Dst
	round := filepath.Base(filepath.Dir(dst))
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[round]++
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		if err := fail(round); err != nil {
			return err
		}
	}
	return os.WriteFile(dst, []byte("a "+side+" layout"), 0o755)
}

func (c *countingLayout) count(round string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[round]
}

// TestEveryRoundAfterTheFirstIsMadeWhileTheLastStops: in a duet every
// round's binaries but the first are made ahead, once each, and preloaded
// on a target that preloads; nothing is made after the last round.
func TestEveryRoundAfterTheFirstIsMadeWhileTheLastStops(t *testing.T) {
	tg := &preloadingFake{Fake: newFake(false)}
	layout := &countingLayout{}
	runs, err := Run(context.Background(), Options{
		Config: duetConfig(t, 3, 3, 1), Target: tg, Binaries: fakeBinaries(t), OutDir: t.TempDir(), Seed: 7, Duet: true,
		GeneratorCPUs: testGeneratorCPUs, ServiceCPUs: 1, Progress: io.Discard, Layout: layout.link,
		Record: func(report.Run) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	last := runs[len(runs)-1].Pair
	for round := 1; round <= last+1; round++ {
		want := 2
		if round > last {
			want = 0
		}
		if got := layout.count(roundDirName(round)); got != want {
			t.Errorf("round %d linked %d times, want %d (calls: %v)", round, got, want, layout.calls)
		}
	}
	tg.mu.Lock()
	preloaded := append([]string(nil), tg.preloaded...)
	tg.mu.Unlock()
	sort.Strings(preloaded)
	var want []string
	for round := 2; round <= last; round++ {
		for _, side := range []string{Base, Head} {
			want = append(want, roundDirName(round)+"/"+side)
		}
	}
	sort.Strings(want)
	if len(preloaded) != len(want) {
		t.Fatalf("preloaded %v, want every round's binaries but the first's: %v", preloaded, want)
	}
	for i := range want {
		if preloaded[i] != want[i] {
			t.Fatalf("preloaded %v, want %v", preloaded, want)
		}
	}
}

// TestARoundMadeAheadForAnotherIsDropped: what was made ahead for a round
// that does not come next is removed, and the round asked for is made.
func TestARoundMadeAheadForAnotherIsDropped(t *testing.T) {
	rb, err := newRoundBinaries()
	if err != nil {
		t.Fatal(err)
	}
	defer rb.close()
	layout := &countingLayout{}
	o := Options{Config: duetConfig(t, 3, 3, 0), Target: newFake(false), Binaries: fakeBinaries(t), Seed: 7, Layout: layout.link}
	rb.prepareAhead(context.Background(), o, 3)
	paths, _, done, err := rb.forRound(context.Background(), o, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := os.Stat(filepath.Join(rb.dir, roundDirName(3))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("round 3's binaries, made ahead and not taken, are still there (stat: %v)", err)
	}
	if layout.count(roundDirName(4)) != 2 || len(paths) != 2 {
		t.Errorf("round 4: %d links, paths %v; want both sides made now", layout.count(roundDirName(4)), paths)
	}
}

// TestAFailedMakeAheadIsMadeAgain: a link that failed ahead (a busy
// machine, a killed linker) is tried again when its round comes, and only
// that second error would count.
func TestAFailedMakeAheadIsMadeAgain(t *testing.T) {
	rb, err := newRoundBinaries()
	if err != nil {
		t.Fatal(err)
	}
	defer rb.close()
	var failed atomic.Bool
	layout := &countingLayout{fail: func(string) error {
		if failed.CompareAndSwap(false, true) {
			return errors.New("signal: killed")
		}
		return nil
	}}
	o := Options{Config: duetConfig(t, 3, 3, 0), Target: newFake(false), Binaries: fakeBinaries(t), Seed: 7, Layout: layout.link}
	rb.prepareAhead(context.Background(), o, 2)
	paths, _, done, err := rb.forRound(context.Background(), o, 2)
	if err != nil {
		t.Fatalf("round 2 failed although only its first link ahead did: %v", err)
	}
	defer done()
	for side, path := range paths {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", side, err)
		}
	}
}

// TestCloseStopsWhatIsMadeAhead: close cancels a link under way and
// waits for it to return before removing the directory, so nothing made
// ahead outlives the experiment.
func TestCloseStopsWhatIsMadeAhead(t *testing.T) {
	rb, err := newRoundBinaries()
	if err != nil {
		t.Fatal(err)
	}
	linking := make(chan struct{}, 2)
	var returned atomic.Int32
	layout := func(ctx context.Context, _ LayoutRequest) error {
		defer returned.Add(1)
		linking <- struct{}{}
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a linker that takes a moment to die
		return ctx.Err()
	}
	o := Options{Config: duetConfig(t, 3, 3, 0), Target: newFake(false), Binaries: fakeBinaries(t), Seed: 7, Layout: layout}
	rb.prepareAhead(context.Background(), o, 2)
	<-linking
	<-linking
	rb.close()
	if n := returned.Load(); n != 2 {
		t.Errorf("close returned while %d of 2 links made ahead were still under way", 2-n)
	}
	if _, err := os.Stat(rb.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the round binaries' directory is still there after close (stat: %v)", err)
	}
}
