package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// slowStarts is the fake target with a cluster's slow starts and stops
// (startStop each), counting how many are under way at once.
type slowStarts struct {
	*targettest.Fake
	startStop time.Duration
	mu        sync.Mutex
	now, most map[string]int // "start", "stop" → under way now, most at once
}

func newSlowStarts(startStop time.Duration) *slowStarts {
	return &slowStarts{Fake: newFake(false), startStop: startStop, now: map[string]int{}, most: map[string]int{}}
}

func (s *slowStarts) during(what string, f func()) {
	s.mu.Lock()
	s.now[what]++
	s.most[what] = max(s.most[what], s.now[what])
	s.mu.Unlock()
	time.Sleep(s.startStop)
	f()
	s.mu.Lock()
	s.now[what]--
	s.mu.Unlock()
}

func (s *slowStarts) Start(ctx context.Context, spec target.Spec) (inst target.Instance, err error) {
	s.during("start", func() { inst, err = s.Fake.Start(ctx, spec) })
	if err != nil {
		return nil, err
	}
	return &slowStop{Instance: inst, s: s}, nil
}

type slowStop struct {
	target.Instance
	s *slowStarts
}

func (i *slowStop) Stop() (exit target.Exit) {
	i.s.during("stop", func() { exit = i.Instance.Stop() })
	return exit
}

// inParallel is slowStarts declaring target.StartsInParallel.
type inParallel struct{ *slowStarts }

func (inParallel) StartsInParallel() {}

// TestDuetStartsBothSidesAtOnceWhereStartsWaitOnACluster: on a target
// whose starts and stops mostly wait (target.StartsInParallel), a duet
// round starts its two sides at once and stops them at once; elsewhere
// one after the other. Either way every round records its start order in
// Started, first side first, and measures.
func TestDuetStartsBothSidesAtOnceWhereStartsWaitOnACluster(t *testing.T) {
	for _, c := range []struct {
		name     string
		parallel bool
	}{{"one after the other", false}, {"at once", true}} {
		t.Run(c.name, func(t *testing.T) {
			slow := newSlowStarts(200 * time.Millisecond)
			var tg target.Target = slow
			want := 1
			if c.parallel {
				tg, want = inParallel{slow}, 2
			}
			cfg := duetConfig(t, 2, 2, 0)
			cfg.Profiles = nil
			l := runLoopWith(context.Background(), t, nil, cfg, true, nil, func(o *Options) { o.Target = tg })
			if l.err != nil {
				t.Fatal(l.err)
			}
			if got := validRounds(l.runs); got != 2 {
				t.Fatalf("%d valid rounds, want 2; invalid: %s", got, invalidOnes(l.runs))
			}
			if slow.most["start"] != want || slow.most["stop"] != want {
				t.Errorf("at most %d starts and %d stops under way at once, want %d", slow.most["start"], slow.most["stop"], want)
			}
			for k := 0; k < len(l.runs); k += 2 {
				first, second := l.runs[k], l.runs[k+1]
				if second.Duet.StartedFirst {
					first, second = second, first
				}
				if !first.Started.Before(second.Started) {
					t.Errorf("round %d: the side started first at %v, the other at %v", first.Pair, first.Started, second.Started)
				}
			}
		})
	}
}

// failsHead is a target that starts both sides at once, fails head's start
// at once, and holds base's until its context ends (as a cluster holds a
// pod that never gets ready), for at most hold; held says how base's start
// ended: the context's error, or nil when hold ran out.
type failsHead struct {
	*targettest.Fake
	hold time.Duration
	held chan error
}

func (failsHead) StartsInParallel() {}

func (f failsHead) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	if filepath.Base(spec.Binary) == Head {
		return nil, &target.StartError{Reason: "exited before it was ready", Exit: target.Exit{ExitedOnItsOwn: true, Code: 1}}
	}
	select {
	case <-ctx.Done():
		f.held <- ctx.Err()
		return nil, ctx.Err()
	case <-time.After(f.hold):
		f.held <- nil
		return f.Fake.Start(ctx, spec)
	}
}

// TestAStartThatFailsCancelsTheOtherSidesStart: where a round starts both
// sides at once, the first start to fail cancels the other's, which would
// otherwise wait out its ready timeout, and the failure reported is that
// first one (head's, with its reason), not the cancellation.
func TestAStartThatFailsCancelsTheOtherSidesStart(t *testing.T) {
	dir := t.TempDir()
	tg := failsHead{Fake: newFake(false), hold: 20 * time.Second, held: make(chan error, 1)}
	o := Options{Config: duetConfig(t, 2, 2, 0), Target: tg, OutDir: dir, Duet: true,
		Binaries: map[string]string{Base: filepath.Join(dir, Base), Head: filepath.Join(dir, Head)}}
	runs := []report.Run{{Side: Base, Pair: 1, Dir: "base-1"}, {Side: Head, Pair: 1, Dir: "head-1"}}
	probes := make([]*probe, 2)
	failed, err := startProbes(context.Background(), o, runs, probes, []int{0, 1}, true)
	var sf *StartFailure
	if failed != 1 || !errors.As(err, &sf) || sf.Side != Head {
		t.Errorf("startProbes returned side %d, %v; want head's (1) start failure", failed, err)
	}
	if held := <-tg.held; !errors.Is(held, context.Canceled) {
		t.Errorf("base's start ended with %v, want its context cancelled by head's failure", held)
	}
	if probes[0] != nil || probes[1] != nil {
		t.Errorf("probes %v, want none started", probes)
	}
	if len(runs[1].InvalidReasons) != 1 || !strings.Contains(runs[1].InvalidReasons[0], "exited before it was ready") {
		t.Errorf("head's run says %q, want its own reason", runs[1].InvalidReasons)
	}
}
