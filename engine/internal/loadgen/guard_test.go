package loadgen

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
)

func testToken(t *testing.T) string {
	t.Helper()
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// guarded is a real server for guard, in process, on loopback.
func guarded(t *testing.T, guard Guard) (*server, string) {
	t.Helper()
	s := newServer(guard)
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return s, ts.URL
}

// send makes one control request with token (none when empty) and returns
// the status and body.
func send(t *testing.T, method, url, token string, body any) (int, string) {
	t.Helper()
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func TestNewTokenIsRandomAnd256Bits(t *testing.T) {
	a, b := testToken(t), testToken(t)
	if len(a) != 64 || a == b {
		t.Errorf("tokens %q and %q: want two different 64-hex-digit tokens", a, b)
	}
}

// TestControlWithoutTheTokenIs401AndDoesNothing checks every control call
// without the run's token: 401, no generator made, none removed, no load
// sent; /healthz stays open for the readiness probe and tells nothing.
func TestControlWithoutTheTokenIs401AndDoesNothing(t *testing.T) {
	var hits atomic.Int64
	svc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer svc.Close()
	token := testToken(t)
	s, url := guarded(t, Guard{Token: token, Targets: []string{strings.TrimPrefix(svc.URL, "http://")}})
	spec := NewGenerator{URL: svc.URL, Rate: 100, Timeout: time.Second, Requests: []load.Request{{Method: "GET", Path: "/"}}}

	code, body := send(t, http.MethodPost, url+"/generators", token, spec)
	if code != http.StatusOK {
		t.Fatalf("with the token: %d %s", code, body)
	}
	wrong := []struct{ name, token string }{
		{"no token", ""},
		{"a wrong token of the same length", testToken(t)},
		{"the token's prefix", token[:32]},
		{"the token with more after it", token + "0"},
	}
	for _, w := range wrong {
		for _, call := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPost, "/generators", spec},
			{http.MethodPost, "/generators/1/attack", AttackRequest{Duration: 200 * time.Millisecond, CountFrom: -1}},
			{http.MethodDelete, "/generators/1", nil},
			{http.MethodGet, "/debug/pprof/", nil},
		} {
			if code, body := send(t, call.method, url+call.path, w.token, call.body); code != http.StatusUnauthorized || !strings.Contains(body, TokenHeader) {
				t.Errorf("%s, %s %s: %d %q, want 401 naming %s", w.name, call.method, call.path, code, body, TokenHeader)
			}
		}
	}
	s.mu.Lock()
	made := len(s.generators)
	s.mu.Unlock()
	if made != 1 || hits.Load() != 0 {
		t.Errorf("after the refused calls: %d generators (want the 1 made with the token), %d requests sent to the service (want 0)", made, hits.Load())
	}
	if code, body := send(t, http.MethodGet, url+"/healthz", "", nil); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz without the token: %d %q, want 200 \"ok\"", code, body)
	}
}

func TestServeRefusesAGuardThatAdmitsAnyone(t *testing.T) {
	for _, g := range []Guard{
		{Targets: []string{"10.96.0.7:80"}},
		{Token: "short", Targets: []string{"10.96.0.7:80"}},
		{Token: strings.Repeat("a", 64)},
		{Token: strings.Repeat("a", 64), Targets: []string{"10.96.0.7"}},
	} {
		if err := Serve("127.0.0.1:0", time.Minute, g); err == nil || strings.Contains(err.Error(), "listen") {
			t.Errorf("Serve with %+v: %v, want a refusal before listening", g, err)
		}
	}
}

// TestLoadGoesOnlyToTheRunsService sends generators aimed elsewhere,
// directly or through a path or readiness URL that moves the host: each
// is refused with 403 before any request leaves, and the run's service is
// accepted.
func TestLoadGoesOnlyToTheRunsService(t *testing.T) {
	var foreignHits atomic.Int64
	foreign := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { foreignHits.Add(1) }))
	defer foreign.Close()
	foreignHost := strings.TrimPrefix(foreign.URL, "http://")
	token := testToken(t)
	_, url := guarded(t, Guard{Token: token, Targets: []string{"10.96.0.7:80"}})

	get := []load.Request{{Method: "GET", Path: "/"}}
	for _, c := range []struct {
		name string
		spec NewGenerator
	}{
		{"another host", NewGenerator{URL: foreign.URL, Requests: get}},
		{"another address sharing a prefix", NewGenerator{URL: "http://10.96.0.70:80", Requests: get}},
		{"a name ending in the address", NewGenerator{URL: "http://x10.96.0.7:80", Requests: get}},
		{"another port", NewGenerator{URL: "http://10.96.0.7:8080", Requests: get}},
		{"https", NewGenerator{URL: "https://10.96.0.7:80", Requests: get}},
		{"user info", NewGenerator{URL: "http://10.96.0.7:80@" + foreignHost, Requests: get}},
		{"a path that moves the host", NewGenerator{URL: "http://10.96.0.7:80", Requests: []load.Request{{Method: "GET", Path: "/"}, {Method: "GET", Path: "@" + foreignHost + "/"}}}},
		{"a readiness path that moves the host", NewGenerator{URL: "http://10.96.0.7:80", Requests: get, Ready: "@" + foreignHost + "/healthz", ReadyTimeout: time.Second}},
	} {
		c.spec.Rate, c.spec.Timeout = 10, time.Second
		code, body := send(t, http.MethodPost, url+"/generators", token, c.spec)
		if code != http.StatusForbidden || !strings.Contains(body, "10.96.0.7:80") {
			t.Errorf("%s: %d %q, want 403 naming the run's service", c.name, code, body)
		}
	}
	if foreignHits.Load() != 0 {
		t.Errorf("the foreign host got %d requests, want 0", foreignHits.Load())
	}
	for _, ok := range []string{"http://10.96.0.7:80", "http://10.96.0.7"} {
		spec := NewGenerator{URL: ok, Rate: 10, Timeout: time.Second, Requests: []load.Request{{Method: "GET", Path: "/a?b=c"}}}
		if code, body := send(t, http.MethodPost, url+"/generators", token, spec); code != http.StatusOK {
			t.Errorf("the run's service at %s: %d %q, want 200", ok, code, body)
		}
	}
}

// TestLimitsAreRefusedWithFieldValueAndLimit sends each field just past
// its limit: 400 naming the field, the value and the limit, and a control
// body past its limit: 413.
func TestLimitsAreRefusedWithFieldValueAndLimit(t *testing.T) {
	token := testToken(t)
	s, url := guarded(t, Guard{Token: token, Targets: []string{"10.96.0.7:80"}})
	valid := func() NewGenerator {
		return NewGenerator{URL: "http://10.96.0.7:80", Rate: MaxRate, Timeout: MaxDuration, ReadyTimeout: MaxDuration,
			Requests: []load.Request{{Method: "POST", Path: "/", Body: strings.Repeat("x", MaxBodyBytes)}}}
	}
	if code, body := send(t, http.MethodPost, url+"/generators", token, valid()); code != http.StatusOK {
		t.Fatalf("a generator at every limit: %d %q, want 200", code, body)
	}
	many := make([]load.Request, MaxRequests+1)
	for i := range many {
		many[i] = load.Request{Method: "GET", Path: "/"}
	}
	heavy := make([]load.Request, MaxBodiesBytes/MaxBodyBytes+1)
	for i := range heavy {
		heavy[i] = load.Request{Method: "POST", Path: "/", Body: strings.Repeat("x", MaxBodyBytes)}
	}
	for _, c := range []struct {
		change func(*NewGenerator)
		want   []string
	}{
		{func(g *NewGenerator) { g.Rate = MaxRate + 1 }, []string{"rate", "50001", "50000"}},
		{func(g *NewGenerator) { g.Timeout = MaxDuration + time.Second }, []string{"timeout_ns", "10m1s", "10m0s"}},
		{func(g *NewGenerator) { g.ReadyTimeout = MaxDuration + time.Second }, []string{"ready_timeout_ns", "10m1s", "10m0s"}},
		{func(g *NewGenerator) { g.Requests = many }, []string{"requests", "10001", "10000"}},
		{func(g *NewGenerator) { g.Requests[0].Body += "x" }, []string{"requests[0].body", "1048577 bytes", "1048576 bytes"}},
		{func(g *NewGenerator) { g.Requests = heavy }, []string{"requests[].body", "17825792 bytes", "16777216 bytes"}},
	} {
		g := valid()
		c.change(&g)
		code, body := send(t, http.MethodPost, url+"/generators", token, g)
		if code != http.StatusBadRequest || !containsAll(body, c.want) {
			t.Errorf("%d %q, want 400 naming %q", code, body, c.want)
		}
	}

	for _, c := range []struct {
		attack AttackRequest
		want   []string
	}{
		{AttackRequest{Duration: MaxDuration + time.Second, CountFrom: -1}, []string{"duration_ns", "10m1s", "10m0s"}},
		{AttackRequest{Duration: time.Second, CountFrom: 2 * time.Second}, []string{"count_from_ns", "2s", "1s"}},
	} {
		code, body := send(t, http.MethodPost, url+"/generators/1/attack", token, c.attack)
		if code != http.StatusBadRequest || !containsAll(body, c.want) {
			t.Errorf("attack %+v: %d %q, want 400 naming %q", c.attack, code, body, c.want)
		}
	}

	small := newServer(s.guard)
	small.maxBody = 1 << 10
	ts := httptest.NewServer(small.handler())
	defer ts.Close()
	g := valid()
	g.Requests[0].Body = strings.Repeat("x", 2<<10)
	if code, body := send(t, http.MethodPost, ts.URL+"/generators", token, g); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "1024 bytes") {
		t.Errorf("a control body over the bound: %d %q, want 413 naming 1024 bytes", code, body)
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
