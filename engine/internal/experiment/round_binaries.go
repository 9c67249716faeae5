package experiment

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// roundBinaries gives every round binaries of its own: each side relinked
// with a layout drawn for the round (Options.Layout), or, without it, a
// fresh copy of each side's build.
//
// Two reasons, both measured. A binary's layout moves a service's CPU per
// request by about ±0.6%, and a pull request changes it even where it
// does not touch the hot path (docs/benchmarks.md, "Layout bias"); one
// layout per side for the whole gate would be a bias the rounds cannot
// average away, a layout per round is noise between rounds. And two
// byte-identical builds in two files measured a steady 0.5-1.4% apart in
// A/A duets on the local target, the same sign in most rounds of a gate:
// each file's text sits in its own page-cache pages, placed once and
// reused by every process started from it. A new file per round turns
// that into noise as well ("Duet noise and bias").
//
// A duet makes the next round's binaries ahead (prepareAhead) while the
// last round's instances stop: on a cluster, relinking both sides and
// building and loading their images took ~1.5 s of a ~12.5-s round, and
// stopping two pods ~1 s, in a row (docs/benchmarks.md, "A cluster
// round's time"). Nothing is measured while either runs. Making them
// while the round's services start instead, the warm-up waiting for them,
// gained nothing on kind: beside the linker the pods took 1.2 s longer to
// be ready (docs/benchmarks.md, "Handing images to kind's node").
type roundBinaries struct {
	dir string

	mu    sync.Mutex
	ahead *preparedRound // being made or made, not yet taken
}

// preparedRound is one round's binaries made ahead; ready is closed once
// they are (or could not be) made.
type preparedRound struct {
	round  int
	cancel context.CancelFunc
	ready  chan struct{}
	paths  map[string]string
	seeds  map[string]uint64
	done   func()
	err    error
}

func newRoundBinaries() (*roundBinaries, error) {
	dir, err := os.MkdirTemp("", "perfgate-round-bin-")
	if err != nil {
		return nil, err
	}
	// The unprivileged service user must reach its binary (see gate's build).
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &roundBinaries{dir: dir}, nil
}

// prepareAhead begins making round's binaries in the background, and,
// where the target can (target.Preloads), making each ready to start: a
// cluster's image built and loaded. forRound takes them. Whatever was made
// ahead and not taken yet is dropped first.
func (rb *roundBinaries) prepareAhead(ctx context.Context, o Options, round int) {
	rb.drop()
	ctx, cancel := context.WithCancel(ctx)
	pr := &preparedRound{round: round, cancel: cancel, ready: make(chan struct{})}
	rb.mu.Lock()
	rb.ahead = pr
	rb.mu.Unlock()
	go func() {
		defer close(pr.ready)
		pr.paths, pr.seeds, pr.done, pr.err = rb.makeNow(ctx, o, round)
		if pr.err != nil {
			return
		}
		if preloads, ok := o.Target.(target.Preloads); ok {
			var wg sync.WaitGroup
			for _, path := range pr.paths {
				// A failed preload is not this round's failure: the
				// target's Start makes the binary ready again and
				// reports it there, as it does without preloading.
				wg.Go(func() { _ = preloads.Preload(ctx, path) })
			}
			wg.Wait()
		}
	}()
}

// take returns what was made ahead for round, if anything was.
func (rb *roundBinaries) take(round int) *preparedRound {
	rb.mu.Lock()
	pr := rb.ahead
	if pr != nil && pr.round == round {
		rb.ahead = nil
	} else {
		pr = nil
	}
	rb.mu.Unlock()
	if pr != nil {
		<-pr.ready
	}
	return pr
}

// drop stops and removes whatever was made ahead and not taken. Stopping
// cancels the build's context, which kills the go command; a linker it had
// started may still finish, into go's own temporary directory.
func (rb *roundBinaries) drop() {
	rb.mu.Lock()
	pr := rb.ahead
	rb.ahead = nil
	rb.mu.Unlock()
	if pr == nil {
		return
	}
	pr.cancel()
	<-pr.ready
	if pr.done != nil {
		pr.done()
	}
}

// forRound returns round's binaries of every side of o.Binaries: those
// prepareAhead made, else made now (makeNow), with the layout seed of each
// and done, which removes them once the round's processes have stopped.
func (rb *roundBinaries) forRound(ctx context.Context, o Options, round int) (map[string]string, map[string]uint64, func(), error) {
	if pr := rb.take(round); pr != nil {
		defer pr.cancel()
		if pr.err == nil {
			return pr.paths, pr.seeds, pr.done, nil
		}
		if pr.done != nil {
			pr.done()
		}
		// An interruption is the interruption, whatever the link made
		// ahead said; any other failure there (a busy machine, a linker
		// killed) is tried again now, and only this try's error counts.
		if err := ctx.Err(); err != nil {
			return nil, nil, func() {}, err
		}
	}
	rb.drop()
	return rb.makeNow(ctx, o, round)
}

// makeNow makes round's binaries of every side of o.Binaries in a
// directory of the round's own, and returns them by side with the layout
// seed of each (0 for a copy); done removes them once the round's
// processes have stopped. Both sides link at once, before the round
// starts: nothing is measured while the linker runs.
func (rb *roundBinaries) makeNow(ctx context.Context, o Options, round int) (map[string]string, map[string]uint64, func(), error) {
	dir := filepath.Join(rb.dir, roundDirName(round))
	done := func() { os.RemoveAll(dir) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, done, err
	}
	// Under sudo the invoking user links into it (build.Layout).
	if err := privilege.GiveToInvoker(dir); err != nil {
		return nil, nil, done, err
	}
	paths := make(map[string]string, len(o.Binaries))
	seeds := make(map[string]uint64, len(o.Binaries))
	errs := make(map[string]error, len(o.Binaries))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for side, src := range o.Binaries {
		dst := filepath.Join(dir, filepath.Base(src))
		paths[side] = dst
		req := LayoutRequest{Side: side, Paired: pairedRound(o.Config, round), Dst: dst}
		if o.Layout != nil {
			req.Seed = layoutSeed(o.Seed, round, seedOwner(o.Config, round, side))
			seeds[side] = req.Seed
		}
		wg.Go(func() {
			var err error
			if o.Layout != nil {
				err = o.Layout(ctx, req)
			} else {
				err = copyFile(src, dst)
			}
			if err != nil {
				mu.Lock()
				errs[side] = fmt.Errorf("make the %s binary of round %d: %w", side, round, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// An interruption kills the linker: that is the interruption, not a
	// failed build.
	if err := ctx.Err(); err != nil {
		return nil, nil, done, err
	}
	for _, side := range []string{Base, Head} {
		if err := errs[side]; err != nil {
			return nil, nil, done, err
		}
	}
	return paths, seeds, done, nil
}

// roundDirName is the directory of round's binaries.
func roundDirName(round int) string { return fmt.Sprintf("round-%02d", round) }

// close removes every round's binaries, once what is being made ahead
// has stopped.
func (rb *roundBinaries) close() {
	rb.drop()
	os.RemoveAll(rb.dir)
}

// A LayoutRequest is one relink of a round: Side's binary to Dst with the
// layout of Seed. Paired says that the round's other side takes the same
// seed, to be linked so that the functions both share sit alike
// (layout_pairing, build.PairedLinker says why).
type LayoutRequest struct {
	Side   string
	Seed   uint64
	Paired bool
	Dst    string
}

// pairedRound says whether round's two sides take one layout seed:
// every round's under layout_pairing: paired, none under independent, and
// the odd rounds' under alternate, which measures what pairing gains.
func pairedRound(cfg *config.Config, round int) bool {
	switch cfg.LayoutPairing {
	case "independent":
		return false
	case "alternate":
		return round%2 == 1
	}
	return true
}

// seedOwner is whose layout seed side's binary takes in round: "both
// sides" in a paired round, else side.
func seedOwner(cfg *config.Config, round int, side string) string {
	if pairedRound(cfg, round) {
		return "both sides"
	}
	return side
}

// layoutSeed is the layout of side's binary in round: a function of the
// gate's seed, so that --seed replays every round's layouts; positive as
// the linker's int64 flag, and never 0 (its "keep the layout").
func layoutSeed(seed uint64, round int, side string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "layout/%d/%d/%s", seed, round, side)
	return h.Sum64()>>1 | 1
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
