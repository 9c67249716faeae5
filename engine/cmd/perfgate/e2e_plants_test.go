package main

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// ordersExperiment is decisiveExperiment with orders only, for plants in
// the order path; %s are extra service arguments.
const ordersExperiment = `version: 1
service:
  package: ./cmd/server
  args: ["-addr", "{addr}"%s]
load:
  rate: 200
  warmup: 1s
  duration: 1s
  requests:
    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '{"id":1,"qty":2}'
pairs: 6
gate:
  alpha: 0.1
validity:
  min_cpu_samples: 0
`

// TestGatePlantedRegressions gates the example service against planted
// regressions in the order path: each fails on its metric, names its
// function among the largest deltas of its profile, and fires its hint.
// (alloc-sprintf and cpu-regexp have tests of their own; time-after,
// global-lock and dns-per-request need tens of thousands of requests per
// side before their small allocations or contention rise above sampling
// noise, so their hints are tested on recorded gates in internal/hints.)
//
// It tests diagnosis, not plumbing: it runs with PERFGATE_DIAGNOSIS=1
// (scripts/bench.sh), not in CI, whose time goes to what can break
// between commits (CONTRIBUTING.md, "CI's time"); the hints' rules are
// tested in CI on gates recorded from these same plants.
func TestGatePlantedRegressions(t *testing.T) {
	if os.Getenv("PERFGATE_DIAGNOSIS") != "1" {
		t.Skip("diagnosis of planted regressions in real gates (about 2 minutes): set PERFGATE_DIAGNOSIS=1, as scripts/bench.sh does")
	}
	for _, tc := range []struct {
		patch, args, metric, profile, function, hint string
	}{
		{"pool-lost.patch", "", "allocs", "allocs", "net/http.(*Transport).dialConn", "dial-per-request"},
		{"tls-per-request.patch", `, "-inventory-tls"`, "cpu", "cpu", "crypto/tls.(*Conn).HandshakeContext", "tls-handshake-per-request"},
		{"goroutine-leak.patch", "", "allocs", "goroutine", "example.com/perfgate-example/internal/httpapi.(*Server).watchStock", "goroutine-growth"},
	} {
		t.Run(strings.TrimSuffix(tc.patch, ".patch"), func(t *testing.T) {
			cfg := writeConfig(t, strings.Replace(ordersExperiment, "%s", tc.args, 1))
			g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, tc.patch))
			if g.code != 1 || g.report == nil || g.report.Verdict != report.Regression {
				t.Fatalf("exit %d, want 1 with verdict regression", g.code)
			}
			if got := metricOutcome(g.report, tc.metric); got != "regression" {
				t.Errorf("%s outcome %s, want regression", tc.metric, got)
			}
			if top := topGrowth(g.report, tc.profile, 5); !slices.Contains(top, tc.function) {
				t.Errorf("%s is not among the largest %s deltas: %v", tc.function, tc.profile, top)
			}
			if !hasHint(g.report, tc.hint) {
				t.Errorf("no %s hint; hints: %+v", tc.hint, g.report.Hints)
			}
		})
	}
}

// topGrowth names the n functions whose cost grew most in a profile, flat
// or cum, per request.
func topGrowth(rep *report.Report, profile string, n int) []string {
	var grown []report.Function
	for _, f := range rep.Functions {
		if f.Profile == profile && f.Delta > 0 && !strings.HasPrefix(f.Name, "runtime.") {
			grown = append(grown, f)
		}
	}
	slices.SortStableFunc(grown, func(a, b report.Function) int { return cmp.Compare(b.Delta, a.Delta) })
	var names []string
	for _, f := range grown {
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	return names[:min(n, len(names))]
}
