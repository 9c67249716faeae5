package experiment

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// fakeTarget runs each "service process" as a loopback HTTP server inside
// the test: it answers the load and net/http/pprof (this test process's
// own profiles), and its CPU counter charges a fixed cost per request
// served, costlier for head, so the experiment loop can be tested in
// seconds without cgroups or root. crashHead makes the head instances of
// those rounds (by start order) die in the middle of their window.
type fakeTarget struct {
	mu        sync.Mutex
	started   int
	crashHead map[int]bool
}

func (t *fakeTarget) Name() string { return "fake" }
func (t *fakeTarget) Prepare(context.Context) (target.Environment, error) {
	return target.Environment{Target: "fake"}, nil
}
func (t *fakeTarget) Close() error { return nil }

func (t *fakeTarget) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	t.mu.Lock()
	t.started++
	round := (t.started + 1) / 2
	t.mu.Unlock()
	side := filepath.Base(spec.Binary) // each round's copy keeps the side's name
	inst := &fakeInstance{cost: 100_000, exited: make(chan struct{})}
	if side == Head {
		inst.cost = 110_000
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	crash := side == Head && t.crashHead[round]
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// Half-way through the window (100 requests at 100/s).
		if n := inst.requests.Add(1); crash && n == 50 {
			go inst.crash()
		}
		io.WriteString(w, "ok")
	})
	inst.srv = httptest.NewServer(mux)
	return inst, nil
}

type fakeInstance struct {
	srv       *httptest.Server
	cost      int64 // CPU nanoseconds per request
	requests  atomic.Int64
	exited    chan struct{}
	crashOnce sync.Once
	crashed   atomic.Bool
}

func (i *fakeInstance) BaseURL() string { return i.srv.URL }

func (i *fakeInstance) Counters() (target.Counters, error) {
	if i.crashed.Load() {
		return target.Counters{}, errors.New("no such process")
	}
	return target.Counters{At: time.Now(), ProcessCPUNano: i.requests.Load() * i.cost}, nil
}

func (i *fakeInstance) Exited() <-chan struct{} { return i.exited }

func (i *fakeInstance) crash() {
	i.crashOnce.Do(func() {
		i.crashed.Store(true)
		i.srv.CloseClientConnections()
		close(i.exited)
	})
}

func (i *fakeInstance) Stop() target.Exit {
	exit := target.Exit{ExitedOnItsOwn: i.crashed.Load()}
	if exit.ExitedOnItsOwn {
		exit.Signal = "SIGSEGV"
	}
	i.crashOnce.Do(func() { close(i.exited) })
	i.srv.Close()
	return exit
}

// runFake runs a duet on the fake target with 1 s windows.
func runFake(t *testing.T, tg *fakeTarget, minRounds, maxRounds, profileRounds int, enough func([]report.Run) bool) ([]report.Run, error) {
	t.Helper()
	cfg, err := config.Parse("fake.yml", []byte(`
service: {package: ., args: ["-addr", "{addr}"]}
load: {rate: 100, warmup: 0s, duration: 1s, requests: ["GET /a", "GET /b"]}
profiles: [goroutine]
validity: {min_cpu_samples: 0, max_generator_cpu: 100%}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Pairs, cfg.MaxPairs, cfg.ProfileRounds = minRounds, maxRounds, profileRounds
	dir := t.TempDir()
	bins := map[string]string{Base: filepath.Join(dir, Base), Head: filepath.Join(dir, Head)}
	for _, b := range bins {
		if err := os.WriteFile(b, []byte("not a real binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Run(context.Background(), Options{
		Config: cfg, Target: tg, Binaries: bins, OutDir: t.TempDir(), Seed: 7, Duet: true,
		GeneratorCPUs: 1, ServiceCPUs: 1, Progress: io.Discard,
		Record: func(report.Run) error { return nil }, Enough: enough,
	})
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

func TestDuetStopsWhenDecidedThenProfiles(t *testing.T) {
	asked := 0
	runs, err := runFake(t, &fakeTarget{}, 2, 6, 1, func(runs []report.Run) bool {
		asked++
		return validRounds(runs) >= 3
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := validRounds(runs); got != 3 || asked != 2 {
		t.Fatalf("%d valid rounds after asking %d times; want to stop at 3, asked from the minimum of 2", got, asked)
	}
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 3 gating rounds and 1 profile round of 2 runs each", len(runs))
	}
	for _, r := range runs {
		f := r.Figures
		if r.Duet == nil || f.Requests != 100 || r.Seconds == nil {
			t.Errorf("%s/%d: duet %v, %d requests, %d seconds sampled; want a duet run with 100 requests (1 s at 100/s)", r.Side, r.Pair, r.Duet, f.Requests, len(r.Seconds))
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

func TestDuetReplacesAnInvalidRound(t *testing.T) {
	runs, err := runFake(t, &fakeTarget{crashHead: map[int]bool{2: true}}, 3, 3, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := validRounds(runs); got != 3 || len(runs) != 8 {
		t.Fatalf("%d valid rounds in %d runs; want 3 valid of 4 rounds (round 2 replaced)", got, len(runs))
	}
	for _, r := range runs {
		if r.Pair != 2 {
			continue
		}
		want := map[string]string{Head: "crashed during the run", Base: "the head side of this round is invalid: crashed"}[r.Side]
		if r.Valid || !strings.HasPrefix(r.InvalidReasons[0], want) {
			t.Errorf("%s/2: valid %v, reasons %q; want invalid: %s", r.Side, r.Valid, r.InvalidReasons, want)
		}
	}
}

func TestDuetGivesUpAfterThreeInvalidRoundsInARow(t *testing.T) {
	runs, err := runFake(t, &fakeTarget{crashHead: map[int]bool{1: true, 2: true, 3: true}}, 3, 3, 1, nil)
	var gaveUp *GaveUp
	if !errors.As(err, &gaveUp) || gaveUp.Side != "duet" || !strings.Contains(err.Error(), "3 duet rounds in a row were invalid") {
		t.Fatalf("err %v, want a GaveUp on duet rounds", err)
	}
	if len(runs) != 6 {
		t.Errorf("%d runs, want the 3 invalid rounds kept and no profile round", len(runs))
	}
}
