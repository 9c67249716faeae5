// Package loadgen runs perfgate's load generator as a small HTTP server
// somewhere else than perfgate itself (inside a Kubernetes cluster, next to
// the service), and drives it from perfgate. The attacks are the same
// load.Generator attacks the local targets make; only the place differs,
// so load never has to cross a port-forward.
//
// The protocol is three calls, all JSON:
//
//	POST   /generators              {url, rate, timeout_ns, requests, ready, ready_timeout_ns} → {id}
//	POST   /generators/{id}/attack  {name, duration_ns, count_from_ns, keep_results}         → {summary, results}
//	DELETE /generators/{id}
//
// A generator keeps its connections across attacks (warm-up and window),
// as perfgate's own does.
package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
)

// ListenEnv, when set, turns any binary that imports this package into the
// load-generator server listening on its value (e.g. ":9090"). The check
// lives in init so that perfgate's test binaries, shipped as the
// load-generator image in tests, serve too.
const ListenEnv = "PERFGATE_LOADGEN_LISTEN"

// IdleExit is how long the server waits without a request before it exits,
// so a generator whose perfgate died does not run forever.
const IdleExit = 10 * time.Minute

func init() {
	if addr, ok := os.LookupEnv(ListenEnv); ok {
		err := Serve(addr, IdleExit)
		fmt.Fprintf(os.Stderr, "perfgate load generator: %v\n", err)
		os.Exit(1)
	}
}

// NewGenerator is the body of POST /generators.
type NewGenerator struct {
	URL      string         `json:"url"`
	Rate     float64        `json:"rate"`
	Timeout  time.Duration  `json:"timeout_ns"`
	Requests []load.Request `json:"requests"`
	// Ready is polled through URL until it answers 2xx, so the first
	// attack does not race the cluster's routing to a fresh pod.
	Ready        string        `json:"ready"`
	ReadyTimeout time.Duration `json:"ready_timeout_ns"`
}

// AttackRequest is the body of POST /generators/{id}/attack.
type AttackRequest struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"duration_ns"`
	// CountFrom is an offset from the attack's start; negative means none.
	CountFrom   time.Duration `json:"count_from_ns"`
	KeepResults bool          `json:"keep_results"`
}

// AttackResponse is the answer of an attack.
type AttackResponse struct {
	Summary load.Summary `json:"summary"`
	// Results are vegeta's encoded results when asked for.
	Results []byte `json:"results,omitempty"`
	Error   string `json:"error,omitempty"`
}

type server struct {
	mu         sync.Mutex
	next       int
	generators map[string]*load.Generator
	lastUsed   time.Time
	inFlight   int // requests being served: an attack may outlast IdleExit
}

// Serve serves the protocol on addr until idle for idle.
func Serve(addr string, idle time.Duration) error {
	s := &server{generators: map[string]*load.Generator{}, lastUsed: time.Now()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("POST /generators", s.create)
	mux.HandleFunc("POST /generators/{id}/attack", s.attack)
	mux.HandleFunc("DELETE /generators/{id}", s.remove)
	srv := &http.Server{Addr: addr, Handler: s.touching(mux)}
	go func() {
		for range time.Tick(idle / 10) {
			s.mu.Lock()
			quiet := time.Since(s.lastUsed)
			busy := s.inFlight > 0
			s.mu.Unlock()
			if !busy && quiet > idle {
				srv.Close()
			}
		}
	}()
	fmt.Fprintf(os.Stderr, "perfgate load generator listening on %s\n", addr)
	return srv.ListenAndServe()
}

func (s *server) touching(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.lastUsed = time.Now()
		s.inFlight++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.lastUsed = time.Now()
			s.inFlight--
			s.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var req NewGenerator
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.URL == "" || req.Rate <= 0 || len(req.Requests) == 0 {
		http.Error(w, fmt.Sprintf("bad generator request (%v): url, rate and requests are required", err), http.StatusBadRequest)
		return
	}
	if req.Ready != "" {
		if err := waitReady(r.Context(), req.URL+req.Ready, req.ReadyTimeout); err != nil {
			http.Error(w, err.Error(), http.StatusGatewayTimeout)
			return
		}
	}
	s.mu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	s.generators[id] = load.New(req.URL, req.Rate, req.Timeout, req.Requests)
	s.mu.Unlock()
	writeJSON(w, map[string]string{"id": id})
}

func (s *server) attack(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	gen := s.generators[r.PathValue("id")]
	s.mu.Unlock()
	var req AttackRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || gen == nil || req.Duration <= 0 {
		http.Error(w, fmt.Sprintf("bad attack request (%v) or unknown generator", err), http.StatusBadRequest)
		return
	}
	a := load.Attack{Name: req.Name, Duration: req.Duration}
	if req.CountFrom >= 0 {
		a.CountFrom = time.Now().Add(req.CountFrom)
	}
	var results bytes.Buffer
	if req.KeepResults {
		a.Out = &results
	}
	summary, err := gen.Attack(r.Context(), a)
	resp := AttackResponse{Summary: summary, Results: results.Bytes()}
	if err != nil {
		resp.Error = err.Error()
	}
	writeJSON(w, resp)
}

func (s *server) remove(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if gen := s.generators[r.PathValue("id")]; gen != nil {
		gen.Close()
		delete(s.generators, r.PathValue("id"))
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// waitReady polls url until it answers 2xx or timeout passes.
func waitReady(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the load generator could not reach %s within %v: %s", url, timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
