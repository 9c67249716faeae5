package loadgen

import (
	"bytes"
	"context"
	"net"
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

// TestRemoteAttackMatchesTheProtocol runs a real server on loopback and
// drives a real service through it: the summary counts the requests the
// service saw, and the results decode as vegeta's.
func TestRemoteAttackMatchesTheProtocol(t *testing.T) {
	var served atomic.Int64
	var ready atomic.Bool
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			if !ready.Load() {
				http.Error(w, "warming", http.StatusServiceUnavailable)
			}
			return
		}
		served.Add(1)
	}))
	defer svc.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	token := testToken(t)
	// Serve lives until the test process ends; the health loop below
	// notices when it never starts.
	go func() {
		_ = Serve(addr, time.Minute, Guard{Token: token, Targets: []string{strings.TrimPrefix(svc.URL, "http://")}})
	}()
	server := "http://" + addr
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(server + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.AfterFunc(300*time.Millisecond, func() { ready.Store(true) })

	ctx := context.Background()
	gen, err := Create(ctx, server, http.DefaultClient, token, NewGenerator{
		URL: svc.URL, Rate: 100, Timeout: time.Second, Ready: "/healthz", ReadyTimeout: 5 * time.Second,
		Requests: []load.Request{{Method: "GET", Path: "/a"}, {Method: "POST", Path: "/b", Body: "{}"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	var out bytes.Buffer
	s, err := gen.Attack(ctx, load.Attack{Name: "window", Duration: time.Second, Out: &out, CountFrom: time.Now().Add(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if !loadtest.AllSent(s.Requests, 100) || served.Load() != int64(s.Requests) || s.SuccessRatio != 1 || s.RequestsFrom < 40 || s.RequestsFrom > 60 {
		t.Errorf("summary %+v, served %d; want 100 requests all served, about half from CountFrom", s, served.Load())
	}
	dec := vegeta.NewDecoder(&out)
	n := 0
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			break
		}
		n++
	}
	if uint64(n) != s.Requests {
		t.Errorf("decoded %d results, want the %d of the summary", n, s.Requests)
	}

	_, err = Create(ctx, server, http.DefaultClient, token, NewGenerator{URL: "", Rate: 1})
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a bad generator request gave %v, want a 400", err)
	}
}
