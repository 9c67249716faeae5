package loadgen

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/load/loadtest"
)

// counting is a real loopback service that counts what it served besides
// /healthz.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			served.Add(1)
		}
	}))
	t.Cleanup(svc.Close)
	return svc, &served
}

func hostOf(u string) string { return strings.TrimPrefix(u, "http://") }

// TestRemoteDuetAttack drives two real services with one duet generator on
// a real server: each service gets the rate and is told apart in its own
// summary and results, and the requests follow load.BalancedOrder with the
// swap asked for (the server reuses load.NewDuet).
func TestRemoteDuetAttack(t *testing.T) {
	a, servedA := counting(t)
	b, servedB := counting(t)
	token := testToken(t)
	_, server := guarded(t, Guard{Token: token, Targets: []string{hostOf(a.URL), hostOf(b.URL)}})
	ctx := context.Background()
	requests := []load.Request{{Method: "GET", Path: "/one"}, {Method: "GET", Path: "/two"}}
	const rate = 100
	gen, err := Create(ctx, server, http.DefaultClient, token, NewGenerator{
		URL: a.URL, DuetURL: b.URL, Swap: true, Rate: rate, Timeout: time.Second,
		Requests: requests, Ready: "/healthz", ReadyTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	var _ load.DuetAttacker = gen
	var outA, outB bytes.Buffer
	summaries, err := gen.AttackAll(ctx, load.Attack{Name: "window", Duration: time.Second, Outs: []io.Writer{&outA, &outB}})
	if err != nil {
		t.Fatal(err)
	}
	if len(summaries) != 2 {
		t.Fatalf("%d summaries, want one per service", len(summaries))
	}
	for i, served := range []*atomic.Int64{servedA, servedB} {
		if s := summaries[i]; !loadtest.AllSent(s.Requests, rate) || s.TargetRate != rate || s.SuccessRatio != 1 || served.Load() != int64(s.Requests) {
			t.Errorf("service %d: %d requests at %g/s, success %g, served %d; want %d each at %d/s, all served", i, s.Requests, s.TargetRate, s.SuccessRatio, served.Load(), rate, rate)
		}
	}
	sent := map[uint64]string{}
	for name, out := range map[string]*bytes.Buffer{"a": &outA, "b": &outB} {
		base := map[string]string{"a": a.URL, "b": b.URL}[name]
		dec := vegeta.NewDecoder(out)
		for {
			var r vegeta.Result
			if err := dec.Decode(&r); err != nil {
				break
			}
			path, ok := strings.CutPrefix(r.URL, base)
			if !ok {
				t.Fatalf("results of %s hold a result for %s", name, r.URL)
			}
			sent[r.Seq] = name + " " + path
		}
	}
	if !loadtest.AllSent(len(sent), 2*rate) {
		t.Fatalf("%d results in the two streams, want %d", len(sent), 2*rate)
	}
	// Swapped: service b leads the cycle.
	order := load.BalancedOrder(len(requests), true)
	for seq := range uint64(len(sent)) {
		o := order[seq%uint64(len(order))]
		if want := []string{"a", "b"}[o[0]] + " " + requests[o[1]].Path; sent[seq] != want {
			t.Fatalf("request %d went to %q, want %q (load.BalancedOrder, swapped)", seq, sent[seq], want)
		}
	}

	// One service's summary through Attack, as the sequential experiment
	// reads a generator: the first service's.
	servedBefore := servedA.Load()
	s, err := gen.Attack(ctx, load.Attack{Name: "warmup", Duration: 200 * time.Millisecond})
	if err != nil || !loadtest.AllSent(s.Requests, rate/5) || int64(s.Requests) != servedA.Load()-servedBefore {
		t.Errorf("Attack: %d requests (%v), the first service served %d; want the first service's %d", s.Requests, err, servedA.Load()-servedBefore, rate/5)
	}

	// A warm-up's bursts that open the connections run on the server too
	// (AttackRequest.open_pool).
	before := [2]int64{servedA.Load(), servedB.Load()}
	summaries, err = gen.AttackAll(ctx, load.Attack{Name: "warmup", Duration: 200 * time.Millisecond, OpenPool: true})
	if err != nil || len(summaries) != 2 {
		t.Fatalf("warm-up: %d summaries (%v)", len(summaries), err)
	}
	for i, served := range []*atomic.Int64{servedA, servedB} {
		bursts := served.Load() - before[i] - int64(summaries[i].Requests)
		if want := int64(load.PoolBursts * load.PoolSize(rate)); bursts != want {
			t.Errorf("service %d: the warm-up's bursts sent %d requests, want %d", i, bursts, want)
		}
	}
}

// TestDuetGuard checks that a duet's second service must be in scope too,
// directly and through its requests' and readiness paths, and that the
// rate limit holds for both services together.
func TestDuetGuard(t *testing.T) {
	token := testToken(t)
	// 10.96.0.70 lets a path start "0/": in scope after the first
	// service's URL, out of it after the second's.
	_, server := guarded(t, Guard{Token: token, Targets: []string{"10.96.0.7:80", "10.96.0.70:80", "10.96.0.8:80"}})
	get := []load.Request{{Method: "GET", Path: "/"}}
	for _, c := range []struct {
		name string
		spec NewGenerator
		code int
		want []string
	}{
		{"a second service elsewhere", NewGenerator{URL: "http://10.96.0.7", DuetURL: "http://10.96.0.9", Rate: 1, Requests: get}, http.StatusForbidden, []string{"duet_url", "10.96.0.9:80"}},
		{"a path that moves the second service", NewGenerator{URL: "http://10.96.0.7", DuetURL: "http://10.96.0.8", Rate: 1,
			Requests: []load.Request{{Method: "GET", Path: "0/"}}}, http.StatusForbidden, []string{"requests[0] at duet_url", "10.96.0.80:80"}},
		{"a readiness path that moves it", NewGenerator{URL: "http://10.96.0.7", DuetURL: "http://10.96.0.8", Rate: 1, Requests: get,
			Ready: "0/", ReadyTimeout: time.Second}, http.StatusForbidden, []string{"ready at duet_url", "10.96.0.80:80"}},
		{"half the limit each, and one more", NewGenerator{URL: "http://10.96.0.7", DuetURL: "http://10.96.0.8", Rate: MaxRate/2 + 1, Requests: get},
			http.StatusBadRequest, []string{"rate", "25001 per service of a duet (50002 in total)", "at most 50000 requests per second in total"}},
	} {
		code, body := send(t, http.MethodPost, server+"/generators", token, c.spec)
		if code != c.code || !containsAll(body, c.want) {
			t.Errorf("%s: %d %q, want %d naming %q", c.name, code, body, c.code, c.want)
		}
	}
	ok := NewGenerator{URL: "http://10.96.0.7", DuetURL: "http://10.96.0.8:80", Rate: MaxRate / 2, Requests: get}
	if code, body := send(t, http.MethodPost, server+"/generators", token, ok); code != http.StatusOK {
		t.Errorf("both services in scope at the limit together: %d %q, want 200", code, body)
	}
}
