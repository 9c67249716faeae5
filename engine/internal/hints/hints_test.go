package hints

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// fixture loads a recorded gate of the example service (scripts/
// hint-fixtures.sh records them: real profiles from a real service) and
// recomputes its function deltas with this code.
func fixture(t *testing.T, name string) *report.Report {
	t.Helper()
	dir := filepath.Join("testdata", name)
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	functions, warnings := attribution.Functions(dir, rep.Runs, attribution.OwnCode(rep.Build.Head.BuildInfo, rep.Build.Base.BuildInfo))
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	rep.Functions = functions
	return &rep
}

func fired(hs []report.Hint) map[string]report.Hint {
	out := map[string]report.Hint{}
	for _, h := range hs {
		out[h.Rule] = h
	}
	return out
}

func TestHintsOnRealRegressions(t *testing.T) {
	for _, tc := range []struct {
		fixture, rule, mentions string
	}{
		{"alloc-sprintf", "formatting-on-hot-path", "fmt.Sprint"},
		{"time-after", "timer-per-request", "time."},
		{"pool-lost", "dial-per-request", "net"},
		{"global-lock", "mutex-contention", "sync.(*Mutex).Unlock"},
		{"cpu-regexp", "regexp-compile-per-request", "regexp."},
		{"cpu-regexp", "gc-pressure", "GC cycles"},
		{"tls-per-request", "tls-handshake-per-request", "crypto/tls."},
		{"tls-per-request", "dial-per-request", "net"},
		{"dns-per-request", "dns-per-request", "net.(*Resolver)"},
		{"no-idle-conns", "dial-per-request", "database/sql.(*DB).conn"},
		{"goroutine-leak", "goroutine-growth", "watchStock"},
		{"heap-leak", "heap-growth", "httpapi.(*receipts).keep line 38 (reached from example.com/perfgate-example/internal/httpapi.(*Server).handleOrder)"},
	} {
		t.Run(tc.fixture+"/"+tc.rule, func(t *testing.T) {
			got := fired(For(fixture(t, tc.fixture)))
			h, ok := got[tc.rule]
			if !ok {
				t.Fatalf("rule %s did not fire; fired: %v", tc.rule, got)
			}
			if !strings.Contains(h.Message, tc.mentions) || h.Evidence == "" {
				t.Errorf("hint %+v does not name %s with its evidence", h, tc.mentions)
			}
		})
	}
}

// TestHintsNameTheApplicationCaller: a hint on a library function also
// names the service's own function that reaches it, the nearest on the
// profiled stacks: the function the plant changed (cpu-regexp compiles
// in its new search.isWords, which ParseQuery calls).
func TestHintsNameTheApplicationCaller(t *testing.T) {
	for _, tc := range []struct{ fixture, rule, caller string }{
		{"alloc-sprintf", "formatting-on-hot-path", "httpapi.(*Server).handleSearch"},
		{"cpu-regexp", "regexp-compile-per-request", "search.isWords line 53"},
		{"global-lock", "mutex-contention", "httpapi.(*Server).handleSearch"},
	} {
		h := fired(For(fixture(t, tc.fixture)))[tc.rule]
		if !strings.Contains(h.Message, "reached from example.com/perfgate-example/internal/"+tc.caller) {
			t.Errorf("%s: %s hint does not name %s: %q", tc.fixture, tc.rule, tc.caller, h.Message)
		}
	}
}

// TestHintsNameTheServiceNotItsDriver: in the database example's gate
// (examples/service-db with no-idle-conns.patch, recorded on PostgreSQL 15
// by TestGateDatabaseServiceFindsLostConnectionReuse's configuration), pgx's
// connector grows as much as database/sql.(*DB).conn, which calls it; the
// hint names the service's function that reached database/sql (the
// store's Get) and its line, since the driver is a dependency of the
// build, not the service's code.
func TestHintsNameTheServiceNotItsDriver(t *testing.T) {
	h := fired(For(fixture(t, "no-idle-conns")))["dial-per-request"]
	if !strings.Contains(h.Message, "database/sql.(*DB).conn (reached from example.com/servicedb/internal/orders.(*Store).Get line ") {
		t.Errorf("dial-per-request hint does not name the service's handler: %q", h.Message)
	}
}

// TestHintsNameTheServiceCallWhoseCostGrewWithAnOffStackCost: a Transport
// dials and handshakes on goroutines of its own, so no stack of dialConn
// or HandshakeContext holds the service's code; the hint names the
// service's call whose callees' allocations grew most, and does not claim
// the dial was reached from there. Both plants build a Transport per call
// in inventory.(*Client).Available and send the request on the next lines
// (pool-lost line 68, tls-per-request line 66). Before, the hint named the
// deepest own function within 80% of the largest cum growth: handleOrder,
// the plant's caller, whose growth sampling noise put below the plant's.
func TestHintsNameTheServiceCallWhoseCostGrewWithAnOffStackCost(t *testing.T) {
	for _, c := range []struct{ fixture, rule, site string }{
		{"pool-lost", "dial-per-request", "example.com/perfgate-example/internal/inventory.(*Client).Available line 68"},
		{"tls-per-request", "tls-handshake-per-request", "example.com/perfgate-example/internal/inventory.(*Client).Available line 66"},
	} {
		h := fired(For(fixture(t, c.fixture)))[c.rule]
		if !strings.Contains(h.Message, "the service's call whose cost grew with it: "+c.site+")") || strings.Contains(h.Message, "reached from") {
			t.Errorf("%s: %s hint does not name the plant's call: %q", c.fixture, c.rule, h.Message)
		}
	}
}

// TestHintsStayQuietOnSideEffects: a change that makes each request several
// times more expensive holds every shared lock a little longer; that small
// lock delay is not called contention.
func TestHintsStayQuietOnSideEffects(t *testing.T) {
	got := fired(For(fixture(t, "tls-per-request")))
	for _, rule := range []string{"mutex-contention", "blocked-on-lock", "goroutine-growth"} {
		if h, ok := got[rule]; ok {
			t.Errorf("tls-per-request fired %s: %s", rule, h.Message)
		}
	}
}

// TestHeapGrowthNamesTheSiteAndTheRate: the heap-leak plant keeps a 4 KiB
// page per order; the hint gives the retained rate from the heap metric and
// the bytes the allocation site holds at the window's end.
func TestHeapGrowthNamesTheSiteAndTheRate(t *testing.T) {
	rep := fixture(t, "heap-leak")
	got := fired(For(rep))
	h, ok := got["heap-growth"]
	if !ok {
		t.Fatalf("heap-growth did not fire; fired %v", got)
	}
	containsAll(t, "message", h.Message, "MiB more live heap at the end of each window", "MiB more per 1,000 requests than base's")
	containsAll(t, "evidence", h.Evidence, "heap profile (inuse_space) at window end, flat example.com/perfgate-example/internal/httpapi.(*receipts).keep", "heap retained per 1,000 requests")
	// The plant starts no goroutine: the goroutine count moves with the
	// load's connections, and the goroutines metric says it did not grow.
	if g, ok := got["goroutine-growth"]; ok {
		t.Errorf("heap-leak fired goroutine-growth: %s", g.Message)
	}

	// Below gate.heap the same profile is no leak worth a hint.
	rep.Config.Gate.Heap = 64 << 20
	if g, ok := fired(For(rep))["heap-growth"]; ok {
		t.Errorf("heap-growth fired under a 64Mi threshold: %s", g.Message)
	}
}

// TestHeapFillsUpIsNotALeak: the bounded-cache plant keeps the 200 most
// recent receipts, which fill up halfway through the first half of the
// fixture's windows. Its heap grows there and not in the second half (the
// heap metric): no heap-growth, but a heap-fills-up hint that names the
// allocation site, so the reviewer can check the bound. A leak that keeps
// growing gets heap-growth only.
func TestHeapFillsUpIsNotALeak(t *testing.T) {
	got := fired(For(fixture(t, "bounded-cache")))
	if h, ok := got["heap-growth"]; ok {
		t.Errorf("a bounded cache fired heap-growth: %s", h.Message)
	}
	h, ok := got["heap-fills-up"]
	if !ok {
		t.Fatalf("heap-fills-up did not fire; fired %v", got)
	}
	containsAll(t, "message", h.Message, "httpapi.(*receipts).keep", "more per 1,000 requests than base's in the first half of each window", "not a leak at this load")
	if !strings.Contains(h.Evidence, "in the first half of each window, medians over valid runs") {
		t.Errorf("evidence %q does not give the first halves' growth", h.Evidence)
	}
	if h, ok := fired(For(fixture(t, "heap-leak")))["heap-fills-up"]; ok {
		t.Errorf("a leak that keeps growing fired heap-fills-up: %s", h.Message)
	}
}

// TestHeapThatSlowedButIsUndecidedFillsUp: a short window catches the tail
// of a cache's filling in its second halves, so the heap metric's
// estimate can sit above gate.heap with an interval that cannot tell it
// from it (a CI gate of bounded-cache: +73.6 KiB per 1,000 requests,
// inconclusive, after ~690 in the first halves). Growth that slowed to
// half or less is a cache filling up, said with the undecided figure; a
// leak, which grows in both halves alike, stays heap-growth.
func TestHeapThatSlowedButIsUndecidedFillsUp(t *testing.T) {
	undecided := func(rep *report.Report, change float64) {
		for i := range rep.Metrics {
			if rep.Metrics[i].Name == metric.Heap.Name {
				rep.Metrics[i].Delta, rep.Metrics[i].Outcome = change, report.Inconclusive
			}
		}
	}
	rep := fixture(t, "bounded-cache")
	threshold := metric.Heap.Threshold(rep.Config.Gate)
	undecided(rep, 1.15*threshold)
	got := fired(For(rep))
	if h, ok := got["heap-growth"]; ok {
		t.Errorf("a bounded cache whose second halves were undecided fired heap-growth: %s", h.Message)
	}
	h, ok := got["heap-fills-up"]
	if !ok {
		t.Fatalf("heap-fills-up did not fire; fired %v", got)
	}
	containsAll(t, "message", h.Message, "by much less in the second (+73.6 KiB/1k req, which this run could not tell from gate.heap)", "rather than a leak")
	leak := fixture(t, "heap-leak")
	_, head, ok := firstHalfHeap(leak)
	if !ok {
		t.Fatal("the heap-leak fixture has no first halves' growth")
	}
	undecided(leak, 0.9*head) // grows in both halves alike
	got = fired(For(leak))
	if _, ok := got["heap-growth"]; !ok {
		t.Errorf("an undecided leak that kept growing did not fire heap-growth; fired %v", got)
	}
	if h, ok := got["heap-fills-up"]; ok {
		t.Errorf("an undecided leak that kept growing fired heap-fills-up: %s", h.Message)
	}
}

// TestGoroutineGrowthKeysOnTheRetainedMetric: the goroutine profile alone
// cannot tell leaked goroutines from requests in flight at the window's
// end; when the goroutines metric measured the growth over the window, it
// decides.
func TestGoroutineGrowthKeysOnTheRetainedMetric(t *testing.T) {
	rep := fixture(t, "goroutine-leak")
	if _, ok := fired(For(rep))["goroutine-growth"]; !ok {
		t.Fatal("the recorded leak did not fire")
	}
	rep.Config.Gate.Goroutines = config.Default().Gate.Goroutines
	recompute := func() {
		rep.Summary = results.Medians(rep.Runs)
		rep.Metrics = verdict.Compare(rep.Runs, rep.Config.Gate)
	}
	setRetained := func(base, head float64) {
		for i := range rep.Runs {
			v := base
			if rep.Runs[i].Side == "head" {
				v = head
			}
			rep.Runs[i].Figures.GoroutinesRetainedPer1k = &v
		}
		recompute()
	}
	// A report without the metric (a service without pprof's goroutine
	// count, a report from before the metric): the profile alone fires.
	for i := range rep.Runs {
		rep.Runs[i].Figures.GoroutinesRetainedPer1k = nil
	}
	recompute()
	if _, ok := fired(For(rep))["goroutine-growth"]; !ok {
		t.Fatal("without the metric the profile alone must still fire")
	}
	setRetained(0.2, 0.4)
	if h, ok := fired(For(rep))["goroutine-growth"]; ok {
		t.Errorf("fired although the retained goroutines did not grow: %s", h.Message)
	}
	setRetained(0, 250)
	h, ok := fired(For(rep))["goroutine-growth"]
	if !ok || !strings.Contains(h.Message, "watchStock") || !strings.Contains(h.Message, "grows by 250 goroutines more per 1,000 requests than base's") ||
		!strings.Contains(h.Evidence, "goroutines retained per 1,000 requests") {
		t.Errorf("hint %+v does not name watchStock with the retained rate", h)
	}
	rep.Functions = nil // the goroutine profile was not captured
	if h, ok := fired(For(rep))["goroutine-growth"]; !ok || !strings.Contains(h.Message, "profiles: goroutine") {
		t.Errorf("the metric alone must fire and point at the goroutine profile: %+v", h)
	}
}

func TestNoHintOnAA(t *testing.T) {
	if got := For(fixture(t, "aa")); len(got) != 0 {
		t.Errorf("A/A comparison fired hints: %+v", got)
	}
}

// TestCounterRules covers the counter rules' thresholds; the e2e tests in
// cmd/perfgate show them firing on real throttled and OOM-killed services.
func TestCounterRules(t *testing.T) {
	rep := &report.Report{Config: config.Default().Report()}
	rep.Environment.TargetEnvironment = report.TargetEnvironment{GOMAXPROCS: 4, GOMAXPROCSSource: "set by service.env", Limits: report.CgroupLimits{CPUMillicores: 1000}}
	rep.Runs = []report.Run{
		{Side: "base", Valid: true, Figures: report.Figures{Requests: 400, ThrottledRatio: 0.02}},
		// Invalid runs count for throttling: it is often why they are invalid.
		{Side: "head", Figures: report.Figures{Requests: 400, ThrottledRatio: 0.35}},
		{Side: "head", Exit: report.Exit{OOMKilled: true}, Figures: report.Figures{MemoryPeakBytes: 8 << 20}},
	}
	got := fired(For(rep))
	for _, rule := range []string{"cpu-throttling", "gomaxprocs-above-limit", "oom-killed"} {
		if _, ok := got[rule]; !ok {
			t.Errorf("rule %s did not fire; fired %v", rule, got)
		}
	}
	rep.Environment.GOMAXPROCS = 1
	rep.Runs = rep.Runs[:1]
	if got := For(rep); len(got) != 0 {
		t.Errorf("healthy counters fired %+v", got)
	}
}

// TestCounterRulesOnARecording: a recording measured one tree (as side
// head), so its hints speak of that tree alone, never of a base.
func TestCounterRulesOnARecording(t *testing.T) {
	rep := &report.Report{Config: config.Default().Report(), Mode: report.ModeRecord, Label: "main"}
	rep.Runs = []report.Run{
		{Side: "head", Figures: report.Figures{Requests: 400, ThrottledRatio: 0.35}},
		{Side: "head", Exit: report.Exit{OOMKilled: true}, Figures: report.Figures{MemoryPeakBytes: 8 << 20}},
	}
	got := For(rep)
	if len(got) != 2 {
		t.Fatalf("fired %+v, want cpu-throttling and oom-killed", got)
	}
	for _, h := range got {
		if text := h.Message + " " + h.Evidence; strings.Contains(text, "base") {
			t.Errorf("%s speaks of a base in a recording: %s", h.Rule, text)
		}
	}
}

func TestEveryRuleIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/hints.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Rules() {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/hints.md does not document %s", name)
		}
	}
}

// containsAll fails t for each of wants that the hint's text (its message
// or evidence, as what says) lacks.
func containsAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s %q lacks %q", what, text, want)
		}
	}
}
