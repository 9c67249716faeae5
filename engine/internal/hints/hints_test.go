package hints

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
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
	functions, warnings := attribution.Functions(dir, rep.Runs)
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
		{"goroutine-leak", "goroutine-growth", "watchStock"},
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
// names the service's own function that reaches it.
func TestHintsNameTheApplicationCaller(t *testing.T) {
	for fixtureName, rule := range map[string]string{
		"alloc-sprintf": "formatting-on-hot-path",
		"cpu-regexp":    "regexp-compile-per-request",
		"global-lock":   "mutex-contention",
	} {
		h := fired(For(fixture(t, fixtureName)))[rule]
		if !strings.Contains(h.Message, "reached from example.com/perfgate-example/internal/httpapi.(*Server).handleSearch") {
			t.Errorf("%s: %s hint does not name handleSearch: %q", fixtureName, rule, h.Message)
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

func TestNoHintOnAA(t *testing.T) {
	if got := For(fixture(t, "aa")); len(got) != 0 {
		t.Errorf("A/A comparison fired hints: %+v", got)
	}
}

// TestCounterRules covers the counter rules' thresholds; the e2e tests in
// cmd/perfgate show them firing on real throttled and OOM-killed services.
func TestCounterRules(t *testing.T) {
	rep := &report.Report{Config: *config.Default()}
	rep.Environment.Environment = target.Environment{GOMAXPROCS: 4, GOMAXPROCSSource: "set by service.env", Limits: cgroup.Limits{CPUMillicores: 1000}}
	rep.Runs = []report.Run{
		{Side: "base", Valid: true, Figures: report.Figures{Requests: 400, ThrottledRatio: 0.02}},
		// Invalid runs count for throttling: it is often why they are invalid.
		{Side: "head", Figures: report.Figures{Requests: 400, ThrottledRatio: 0.35}},
		{Side: "head", Exit: target.Exit{OOMKilled: true}, Figures: report.Figures{MemoryPeakBytes: 8 << 20}},
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
	rep := &report.Report{Config: *config.Default(), Mode: report.ModeRecord, Label: "main"}
	rep.Runs = []report.Run{
		{Side: "head", Figures: report.Figures{Requests: 400, ThrottledRatio: 0.35}},
		{Side: "head", Exit: target.Exit{OOMKilled: true}, Figures: report.Figures{MemoryPeakBytes: 8 << 20}},
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

func TestIsApplicationCode(t *testing.T) {
	for name, want := range map[string]bool{
		"example.com/perfgate-example/internal/httpapi.(*Server).handleSearch": true,
		"github.com/acme/shop/cart.Total":                                      true,
		"main.handler":                                                         true,
		"time.NewTimer":                                                        false,
		"crypto.Hash.New":                                                      false,
		"net/http.(*Transport).dialConn":                                       false,
		"golang.org/x/net/http2.(*Framer).ReadFrame":                           false,
	} {
		if got := isApplicationCode(name); got != want {
			t.Errorf("isApplicationCode(%q) = %v, want %v", name, got, want)
		}
	}
}
