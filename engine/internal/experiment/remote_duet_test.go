package experiment

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// remoteDuetFake is the fake target as a cluster's would be: its
// instances' load comes from where it runs them (RemoteLoad), and it makes
// one generator for a duet's two (target.RemoteDuet). The generator is
// perfgate's real one, counted, so the rounds measure real requests.
type remoteDuetFake struct {
	*targettest.Fake
	mu    sync.Mutex
	calls []duetCall
}

type duetCall struct {
	urls    [2]string
	swap    bool
	attacks int
}

func (f *remoteDuetFake) DuetRoom() error { return nil }

func (f *remoteDuetFake) DuetGenerator(inst [2]target.Instance, rate float64, timeout time.Duration, requests []load.Request, swap bool) (load.DuetAttacker, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	urls := [2]string{inst[0].BaseURL(), inst[1].BaseURL()}
	f.calls = append(f.calls, duetCall{urls: urls, swap: swap})
	return &countedDuet{DuetAttacker: load.NewDuet(urls, rate, timeout, requests, swap), f: f, call: len(f.calls) - 1}, nil
}

// countedDuet counts the attacks made through one DuetGenerator call.
type countedDuet struct {
	load.DuetAttacker
	f    *remoteDuetFake
	call int
}

func (c *countedDuet) AttackAll(ctx context.Context, a load.Attack) ([]load.Summary, error) {
	c.f.mu.Lock()
	c.f.calls[c.call].attacks++
	c.f.mu.Unlock()
	return c.DuetAttacker.AttackAll(ctx, a)
}

// TestDuetOnARemoteLoadTargetUsesItsDuetGenerator runs duet rounds on a
// target whose load is generated where it runs the services: every round
// asks it for one generator for both of the round's instances, in base,
// head order with the round's swap, and every attack of the round goes
// through it.
func TestDuetOnARemoteLoadTargetUsesItsDuetGenerator(t *testing.T) {
	tg := &remoteDuetFake{Fake: newFake(false)}
	var _ target.RemoteDuet = tg
	cfg := duetConfig(t, 3, 3, 0)
	cfg.Profiles = nil
	l := runLoopWith(context.Background(), t, nil, cfg, true, nil, func(o *Options) { o.Target = tg })
	if l.err != nil {
		t.Fatal(l.err)
	}
	// A round the machine could not load at the rate (under the race
	// detector, beside other packages' tests: 400 of 500/s once in CI) is
	// invalid and replaced, as it should be; every round still goes
	// through one generator of the target's.
	if got := validRounds(l.runs); got != 3 || len(l.runs)%2 != 0 {
		t.Fatalf("%d runs, %d valid rounds, want 3 valid rounds of 2 runs; invalid: %s", len(l.runs), got, invalidOnes(l.runs))
	}
	if len(tg.calls) != len(l.runs)/2 {
		t.Fatalf("%d duet generators made for %d rounds, want one per round", len(tg.calls), len(l.runs)/2)
	}
	for k, c := range tg.calls {
		base, head := l.runs[2*k], l.runs[2*k+1]
		if base.Side != Base || head.Side != Head {
			t.Fatalf("round %d: runs %s, %s, want base then head", k+1, base.Side, head.Side)
		}
		if c.urls[0] == c.urls[1] {
			t.Errorf("round %d: both sides at %s", k+1, c.urls[0])
		}
		// LedOrder records the swap the generator was made with.
		if base.Duet.LedOrder != !c.swap || head.Duet.LedOrder != c.swap {
			t.Errorf("round %d: made with swap %v, runs record base led %v, head led %v", k+1, c.swap, base.Duet.LedOrder, head.Duet.LedOrder)
		}
		// The window's two halves (no warm-up in this config).
		if c.attacks != 2 {
			t.Errorf("round %d: %d attacks through the target's generator, want the window's 2 halves", k+1, c.attacks)
		}
		// The balanced order gives both the same requests but for the
		// cycle the window's end cuts (under the race detector one side
		// was sent 50 and the other 49): the duet's own balance rule.
		if base.Valid && (base.Load.Requests == 0 || unbalanced(base.Load.Requests, head.Load.Requests)) {
			t.Errorf("round %d: base sent %d requests, head %d: want the same but for a cut cycle, more than none", k+1, base.Load.Requests, head.Load.Requests)
		}
	}
}
