package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// stallingServer is a loopback service that counts the connections it
// accepts and, while stalling is set, holds every request until the next
// 100-ms boundary, as a service throttled by a CPU quota does: the
// requests sent meanwhile pile up, each on a connection of its own.
type stallingServer struct {
	*httptest.Server
	opened   atomic.Int64
	stalling atomic.Bool
}

func newStallingServer(t *testing.T) *stallingServer {
	s := &stallingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.stalling.Load() {
			time.Sleep(time.Until(time.Now().Truncate(100 * time.Millisecond).Add(100 * time.Millisecond)))
		}
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.opened.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// TestWarmUpOpensTheWindowsConnections: a warm-up that opens the pool
// leaves a window whose requests pile up for most of every 100 ms no
// connection to open, in each service of a duet; a warm-up that does not
// open it leaves the window to open them (the control, which shows the
// window's pile-ups do need more connections than a paced warm-up opens).
func TestWarmUpOpensTheWindowsConnections(t *testing.T) {
	const rate = 100 // per service: PoolSize 25, a pile-up of ~10
	for _, openPool := range []bool{true, false} {
		a, b := newStallingServer(t), newStallingServer(t)
		g := NewDuet([2]string{a.URL, b.URL}, rate, 5*time.Second, get("/"), false)
		if _, err := g.AttackAll(context.Background(), Attack{Name: "warmup", Duration: 300 * time.Millisecond, OpenPool: openPool}); err != nil {
			t.Fatal(err)
		}
		warm := [2]int64{a.opened.Load(), b.opened.Load()}
		a.stalling.Store(true)
		b.stalling.Store(true)
		if _, err := g.AttackAll(context.Background(), Attack{Name: "window", Duration: time.Second}); err != nil {
			t.Fatal(err)
		}
		g.Close()
		inWindow := [2]int64{a.opened.Load() - warm[0], b.opened.Load() - warm[1]}
		if openPool {
			for i := range 2 {
				if warm[i] < int64(PoolSize(rate)) || inWindow[i] != 0 {
					t.Errorf("service %d: the warm-up opened %d connections (want %d) and the window %d more (want 0)", i, warm[i], PoolSize(rate), inWindow[i])
				}
			}
		} else if inWindow[0]+inWindow[1] == 0 {
			t.Errorf("without the pool opened, the window's pile-ups opened no connection (warm-up opened %v): the test shows nothing", warm)
		}
	}
}

// TestOpenPoolOpensEveryConnectionOfAFastService: a burst to a service
// that answers at once still opens a connection per request: none can
// take one another gave back.
func TestOpenPoolOpensEveryConnectionOfAFastService(t *testing.T) {
	const rate = 1000 // PoolSize 250
	s := newStallingServer(t)
	g := New(s.URL, rate, 5*time.Second, get("/"))
	defer g.Close()
	// One burst, not openPool's two: the second could make up for what
	// the first failed to open.
	requests := make([]poolRequest, PoolSize(rate))
	for i := range requests {
		requests[i] = poolRequest{g.targets[0], 0}
	}
	g.burst(context.Background(), requests, time.Time{}, make([]atomic.Uint64, 1))
	if s.opened.Load() != int64(PoolSize(rate)) {
		t.Errorf("one burst of %d requests opened %d connections, want one each", PoolSize(rate), s.opened.Load())
	}
}

// TestPoolRequestsCountForAProfileThatCoversThem: a profile that started
// before the bursts covers their requests, so RequestsFrom counts them
// (it is the profile's denominator); one that starts after them does not.
func TestPoolRequestsCountForAProfileThatCoversThem(t *testing.T) {
	const rate = 100 // PoolSize 25, two bursts
	s := newStallingServer(t)
	g := New(s.URL, rate, 5*time.Second, get("/"))
	defer g.Close()
	sum, err := g.Attack(context.Background(), Attack{Name: "warmup", Duration: 300 * time.Millisecond, OpenPool: true, CountFrom: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if want := sum.Requests + PoolBursts*uint64(PoolSize(rate)); sum.RequestsFrom != want {
		t.Errorf("profile from the start: RequestsFrom %d, want the %d paced and the bursts' %d", sum.RequestsFrom, sum.Requests, PoolBursts*PoolSize(rate))
	}
	sum, err = g.Attack(context.Background(), Attack{Name: "warmup", Duration: 300 * time.Millisecond, OpenPool: true, CountFrom: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.RequestsFrom != 0 {
		t.Errorf("profile after the attack: RequestsFrom %d, want 0", sum.RequestsFrom)
	}
}

// TestPoolSize: a quarter of a second of the rate, within its bounds.
func TestPoolSize(t *testing.T) {
	for rate, want := range map[float64]int{0.5: 2, 10: 3, 300: 75, 301: 76, 10000: 512} {
		if got := PoolSize(rate); got != want {
			t.Errorf("PoolSize(%v) = %d, want %d", rate, got, want)
		}
	}
}
