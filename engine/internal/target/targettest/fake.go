package targettest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Fake is a target whose "service processes" are loopback HTTP servers
// inside the test process, so the experiment loop can be tested in
// milliseconds without cgroups or root. Each answers the load (and
// net/http/pprof when asked), and its CPU counter charges a fixed cost
// per request served: exact figures to assert on.
//
// Its services are attacked either by perfgate's real load generator
// (a duet ignores RemoteLoad) or, in a sequential experiment, by a
// synthetic one (FakeInstance.Generator) that "sends" a window's requests
// at once, without waiting for the window's duration to pass.
//
// The side of a service is the base name of its binary (an experiment's
// copies keep it); which pair or round it belongs to is counted from the
// order of starts, two per unit, as both a duet and sequential pairs
// start them.
type Fake struct {
	target.Warner
	// CPUPerRequest is what one request costs each side's service.
	CPUPerRequest map[string]time.Duration
	// Pprof makes the services answer net/http/pprof with the test
	// process's own profiles. Without it the experiment measures load and
	// CPU only and skips the retained figures, whose reads wait for the
	// goroutine count to settle (100 ms and more per run).
	Pprof bool
	// Faults strike the services named in them.
	Faults []Fault
	// Interrupt is called by an Interrupt fault (the test's cancel).
	Interrupt context.CancelFunc
	// CloseWarning, when set, is warned through the Warner at Close (a
	// container that would not go), and CloseErr returned by it.
	CloseWarning string
	CloseErr     error
	// LogReads makes the fake keep every reading of its services in the
	// order they were made (Reads): counter reads and pprof requests.
	LogReads bool

	mu      sync.Mutex
	started int
	reads   []Read
	live    target.Live[*FakeInstance]
}

// Read is one reading of a service: "counters" or a pprof request's path
// and query ("/debug/pprof/heap?debug=1").
type Read struct {
	Side string
	Pair int
	What string
}

// Reads are the readings of every service so far, in order (LogReads).
func (f *Fake) Reads() []Read {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Read(nil), f.reads...)
}

func (f *Fake) logRead(i *FakeInstance, what string) {
	if !f.LogReads {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, Read{Side: i.side, Pair: i.pair, What: what})
}

// Fault is something going wrong with one service at one request.
type Fault struct {
	Side string
	Pair int
	// AtRequest is the request (from 1, as the service counts them)
	// during which the fault strikes.
	AtRequest int64
	Kind      FaultKind
}

// FaultKind is what goes wrong.
type FaultKind int

const (
	// Crash kills the service (SIGSEGV): its counters vanish, its
	// connections close and Exited is closed.
	Crash FaultKind = iota + 1
	// CountersFail makes every later counter read fail although the
	// service lives on (a cgroup file that cannot be read).
	CountersFail
	// Interrupt calls Fake.Interrupt, as a user pressing Ctrl-C would.
	Interrupt
	// Vanish kills the service as a container runtime reports it: its
	// process is gone at once (its /proc entry too: ErrProcessGone), and
	// the target sees it exit only VanishedExitAfter later (docker
	// learning of an OOM kill on a busy machine).
	Vanish
)

// VanishedExitAfter is how long after a Vanish fault Exited closes.
var VanishedExitAfter = 300 * time.Millisecond

// ErrCountersGone is the error of a counter read that a fault broke.
var ErrCountersGone = errors.New("fake: counters cannot be read")

// ErrProcessGone is the error of a counter read after a Vanish fault: the
// process's /proc entry no longer exists.
var ErrProcessGone = fmt.Errorf("fake: read /proc/<pid>/stat: %w", fs.ErrNotExist)

func (f *Fake) Name() string { return "fake" }

func (f *Fake) Prepare(context.Context) (target.Environment, error) {
	return target.Environment{Target: "fake", Confinement: "unconfined"}, nil
}

// Close stops what is still running and reports CloseWarning and
// CloseErr, as a target whose cleanup partly failed.
func (f *Fake) Close() error {
	f.live.Each(func(i *FakeInstance) { i.Stop() })
	if f.CloseWarning != "" {
		f.Warn("%s", f.CloseWarning)
	}
	return f.CloseErr
}

// Started is how many services were started.
func (f *Fake) Started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

func (f *Fake) Start(_ context.Context, spec target.Spec) (target.Instance, error) {
	f.mu.Lock()
	f.started++
	pair := (f.started + 1) / 2
	f.mu.Unlock()
	side := filepath.Base(spec.Binary)
	i := &FakeInstance{fake: f, side: side, pair: pair, cost: f.CPUPerRequest[side].Nanoseconds(), exited: make(chan struct{})}
	for _, fault := range f.Faults {
		if fault.Side == side && fault.Pair == pair {
			i.faults = append(i.faults, fault)
		}
	}
	mux := http.NewServeMux()
	if f.Pprof {
		logged := func(h http.HandlerFunc) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				f.logRead(i, r.URL.RequestURI())
				h(w, r)
			}
		}
		mux.HandleFunc("/debug/pprof/", logged(pprof.Index))
		mux.HandleFunc("/debug/pprof/profile", logged(pprof.Profile))
	} else {
		mux.HandleFunc("/debug/pprof/", http.NotFound) // not a request of the load
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		if !i.serve() {
			panic(http.ErrAbortHandler) // a dead service answers nothing
		}
		io.WriteString(w, "ok")
	})
	i.srv = httptest.NewServer(mux)
	f.live.Track(i, true)
	return i, nil
}

// FakeInstance is one fake service process.
type FakeInstance struct {
	fake     *Fake
	side     string
	pair     int
	srv      *httptest.Server
	cost     int64 // CPU nanoseconds per request
	faults   []Fault
	requests atomic.Int64
	exited   chan struct{}

	countersGone atomic.Bool
	vanished     atomic.Bool
	crashOnce    sync.Once
	crashed      atomic.Bool
	stopOnce     sync.Once
}

func (i *FakeInstance) BaseURL() string { return i.srv.URL }

// serve counts one request and lets the faults due at it strike; it
// reports whether the service was alive to answer it.
func (i *FakeInstance) serve() bool {
	if i.crashed.Load() {
		return false
	}
	n := i.requests.Add(1)
	for _, fault := range i.faults {
		if fault.AtRequest != n {
			continue
		}
		switch fault.Kind {
		case Crash:
			// Dead to the requests that follow at once; the rest of the
			// crash not from within this request, whose handler closing
			// the server's connections would wait for.
			i.crashed.Store(true)
			go i.crash()
		case CountersFail:
			i.countersGone.Store(true)
		case Vanish:
			i.vanished.Store(true)
			i.crashed.Store(true)
			time.AfterFunc(VanishedExitAfter, i.crash)
		case Interrupt:
			i.fake.Interrupt()
		}
	}
	return true
}

func (i *FakeInstance) Counters() (target.Counters, error) {
	i.fake.logRead(i, "counters")
	if i.vanished.Load() {
		return target.Counters{}, ErrProcessGone
	}
	if i.crashed.Load() || i.countersGone.Load() {
		return target.Counters{}, ErrCountersGone
	}
	return target.Counters{At: time.Now(), ProcessCPUNano: i.requests.Load() * i.cost}, nil
}

func (i *FakeInstance) Exited() <-chan struct{} { return i.exited }

func (i *FakeInstance) crash() {
	i.crashOnce.Do(func() {
		i.srv.CloseClientConnections()
		close(i.exited)
	})
}

func (i *FakeInstance) Stop() target.Exit {
	exit := target.Exit{ExitedOnItsOwn: i.crashed.Load()}
	if exit.ExitedOnItsOwn {
		exit.Signal, exit.StderrTail = "SIGSEGV", "panic: runtime error: invalid memory address or nil pointer dereference"
	}
	i.stopOnce.Do(func() {
		i.crashOnce.Do(func() { close(i.exited) })
		i.srv.Close()
		i.fake.live.Track(i, false)
	})
	return exit
}

// Generator is the synthetic load generator of a sequential experiment
// (target.RemoteLoad): perfgate's own would spend the window's real
// seconds on loopback requests.
func (i *FakeInstance) Generator(rate float64, _ time.Duration, _ []load.Request) (load.Attacker, error) {
	return &syntheticLoad{inst: i, rate: rate}, nil
}

// syntheticLoad "sends" an attack's requests to its instance at once and
// summarises them as if they had been paced at rate over the attack's
// duration, each answered in a millisecond. Requests to a dead service
// fail. A cancelled ctx stops it, as it stops the real generator.
type syntheticLoad struct {
	inst *FakeInstance
	rate float64
}

func (s *syntheticLoad) Attack(ctx context.Context, a load.Attack) (load.Summary, error) {
	began := time.Now()
	planned := int(math.Round(s.rate * a.Duration.Seconds()))
	var sent, answered int
	var enc vegeta.Encoder
	if a.Out != nil {
		enc = vegeta.NewEncoder(a.Out)
	}
	for sent < planned && ctx.Err() == nil {
		res := vegeta.Result{Attack: a.Name, Seq: uint64(sent), Method: "GET", URL: s.inst.BaseURL() + "/",
			Timestamp: began.Add(time.Duration(float64(sent) / s.rate * float64(time.Second))), Latency: time.Millisecond}
		sent++
		if s.inst.serve() {
			answered++
			res.Code = 200
		} else {
			res.Error = "connection refused"
		}
		// Like the real generator's, the results go to a.Out.
		if enc != nil {
			if err := enc.Encode(&res); err != nil {
				return load.Summary{}, err
			}
		}
	}
	seconds := a.Duration.Seconds()
	perSecond := make([]uint64, int(math.Ceil(seconds)))
	for k := range sent {
		perSecond[min(len(perSecond)-1, int(float64(k)/s.rate))]++
	}
	ms := time.Millisecond
	summary := load.Summary{Began: began, RequestsPerSecond: perSecond, Load: report.Load{
		Requests: uint64(sent), TargetRate: s.rate,
		AchievedRate: float64(sent) / seconds, Throughput: float64(answered) / seconds,
		StatusCodes: map[string]int{"200": answered}, Duration: a.Duration,
		Latency: report.Latency{Mean: ms, P50: ms, P90: ms, P95: ms, P99: ms, Max: ms},
	}}
	if sent > 0 {
		summary.SuccessRatio = float64(answered) / float64(sent)
		summary.ErrorRate = 1 - summary.SuccessRatio
	}
	if failed := sent - answered; failed > 0 {
		summary.StatusCodes["0"] = failed
		summary.Errors = []string{"connection refused"}
	}
	return summary, ctx.Err()
}

func (s *syntheticLoad) Close() {}
