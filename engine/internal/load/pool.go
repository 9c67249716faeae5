package load

import (
	"context"
	"io"
	"math"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// poolPeak is how long a service may stall, at the load's rate, before the
// load needs more connections than the warm-up opened. A service under a
// CPU limit is throttled for up to the rest of its 100-ms quota period,
// and the requests sent meanwhile each wait on a connection of their own;
// 250 ms covers two periods and a margin. Measured on the recorded cluster
// duets at 300 requests/s per service (docs/benchmarks.md, "A warm-up that
// opens the window's connections"): the serving connections exceeded 75
// (the pool at that rate) by a window's end in 0-0.9% of its windows, in
// three sets of gates.
const poolPeak = 250 * time.Millisecond

// Bounds of the pool opened per service: a few connections at any rate,
// and not thousands at once at a high one (each is a file and a goroutine
// in the service).
const (
	minPool = 2
	maxPool = 512
)

// poolHold bounds how long a burst's requests wait for each other to
// hold a connection (openPool): a dial that fails must not hold the rest
// for the client's whole timeout.
const poolHold = 2 * time.Second

// PoolSize is how many connections the warm-up opens to each service at a
// per-service rate (requests per second).
func PoolSize(rate float64) int {
	return min(maxPool, max(minPool, int(math.Ceil(rate*poolPeak.Seconds()))))
}

// PoolBursts is how many times openPool sends its burst. The first opens
// the generator's connections and grows the service's own pools to the
// burst's peak; but a pool of Go's net/http client that grows under a burst
// also dials connections that no request ends up using (a request takes a
// connection another gave back while its own dial is under way, and the
// dialled one joins the pool unused), and a Go server with a
// ReadHeaderTimeout (which linters ask every server for) closes such a
// connection that long after it was accepted: in a window, each close took
// a connection's goroutines and ~19 KB of live heap with it, at random in
// either side (docs/benchmarks.md, "A warm-up that opens the window's
// connections"). The second burst, at the same peak, finds every connection
// of those pools idle and sends a request over them.
const PoolBursts = 2

// openPool opens PoolSize connections to each service before the warm-up
// paces its requests, by sending that many requests of the mix to each at
// once (burst), PoolBursts times. A window that needs no more connections
// than the warm-up opened opens none, so a half of it does not keep a new
// connection's goroutines and buffers (the live heap and goroutine counts
// the gate compares); and the bursts, sent at once, drive the service's
// own pools (an HTTP client's keep-alive connections, a database pool)
// toward the same peak before the window. The bursts' answers are not
// summarised: the warm-up's paced requests follow. It returns, per
// service, how many of its requests were sent at or after countFrom (a
// profile that started then covers them: Summary.RequestsFrom counts
// them).
func (g *Generator) openPool(ctx context.Context, countFrom time.Time) (sentFrom []uint64) {
	size := PoolSize(g.rate / float64(len(g.services)))
	perService := make([][]vegeta.Target, len(g.services))
	for _, t := range g.targets {
		i := g.serviceOf(t.URL)
		perService[i] = append(perService[i], t)
	}
	var requests []poolRequest
	for j := range size {
		for i, targets := range perService {
			if len(targets) > 0 {
				requests = append(requests, poolRequest{targets[j%len(targets)], i})
			}
		}
	}
	counted := make([]atomic.Uint64, len(g.services))
	for range PoolBursts {
		if ctx.Err() != nil {
			break
		}
		g.burst(ctx, requests, countFrom, counted)
	}
	sentFrom = make([]uint64, len(counted))
	for i := range counted {
		sentFrom[i] = counted[i].Load()
	}
	return sentFrom
}

// poolRequest is one request of a burst and the index of its service.
type poolRequest struct {
	target  vegeta.Target
	service int
}

// burst sends requests at once, each of which holds its connection until
// all of them hold one (the trace's GotConn runs before the request is
// written): no request can take a connection an earlier one has given
// back, so each has its own, dialled if none is idle, however fast the
// service answers. It adds each request written at or after countFrom to
// its service's count.
func (g *Generator) burst(ctx context.Context, requests []poolRequest, countFrom time.Time, counted []atomic.Uint64) {
	var (
		holding atomic.Int64
		allHold = make(chan struct{})
	)
	// A context, not a timer: its Done channel closes for every waiter.
	held, cancel := context.WithTimeout(ctx, poolHold)
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range requests {
		trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
			if holding.Add(1) == int64(len(requests)) {
				close(allHold)
			}
			select {
			case <-allHold:
			case <-held.Done():
			}
			if !countFrom.IsZero() && !time.Now().Before(countFrom) {
				counted[r.service].Add(1)
			}
		}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.send(httptrace.WithClientTrace(ctx, trace), r.target)
		}()
	}
	wg.Wait()
}

// send sends one request of the mix and reads its answer, so that its
// connection goes back to the pool.
func (g *Generator) send(ctx context.Context, t vegeta.Target) {
	req, err := t.Request()
	if err != nil {
		return
	}
	resp, err := g.client.Do(req.WithContext(ctx))
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
	resp.Body.Close()
}
