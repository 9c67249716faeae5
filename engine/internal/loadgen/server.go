// Package loadgen runs perfgate's load generator as a small HTTP server
// somewhere else than perfgate itself (inside a Kubernetes cluster, next to
// the service), and drives it from perfgate. The attacks are the same
// load.Generator attacks the local targets make; only the place differs,
// so load never has to cross a port-forward.
//
// The protocol is three calls, all JSON:
//
//	POST   /generators              {url, duet_url, swap, rate, timeout_ns, requests, ready, ready_timeout_ns} → {id}
//	POST   /generators/{id}/attack  {name, duration_ns, count_from_ns, keep_results}                           → {summaries, results}
//	DELETE /generators/{id}
//
// A generator with a duet_url is a duet's: it sends every request to both
// services in load.BalancedOrder (load.NewDuet), and an attack answers one
// summary (and one results stream) per service, url's first.
//
// Every call carries the run's token in TokenHeader (401 without it), load
// goes only to the run's own services (403 elsewhere), and rate, length and
// size are capped (400 above a limit, naming it; a duet's rate counts both
// services); see Guard. GET /healthz is open for the readiness probe and
// answers only "ok".
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
// load-generator server listening on its value (e.g. ":9090"), guarded by
// TokenEnv and TargetsEnv. The check lives in init so that perfgate's test
// binaries, shipped as the load-generator image in tests, serve too.
const ListenEnv = "PERFGATE_LOADGEN_LISTEN"

// IdleExit is how long the server waits without a control call before it exits,
// so a generator whose perfgate died does not run forever.
const IdleExit = 10 * time.Minute

func init() {
	if addr, ok := os.LookupEnv(ListenEnv); ok {
		guard, err := GuardFromEnv()
		if err == nil {
			err = Serve(addr, IdleExit, guard)
		}
		fmt.Fprintf(os.Stderr, "perfgate load generator: %v\n", err)
		os.Exit(1)
	}
}

// NewGenerator is the body of POST /generators.
type NewGenerator struct {
	URL string `json:"url"`
	// DuetURL, when set, makes a duet's generator: every request goes to
	// URL and to DuetURL, at Rate each, in load.BalancedOrder; Swap makes
	// DuetURL lead the cycle (load.NewDuet).
	DuetURL  string         `json:"duet_url,omitempty"`
	Swap     bool           `json:"swap,omitempty"`
	Rate     float64        `json:"rate"`
	Timeout  time.Duration  `json:"timeout_ns"`
	Requests []load.Request `json:"requests"`
	// Ready is polled through URL (and DuetURL) until it answers 2xx, so
	// the first attack does not race the cluster's routing to a fresh pod.
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
	// OpenPool is load.Attack.OpenPool.
	OpenPool bool `json:"open_pool,omitempty"`
}

// AttackResponse is the answer of an attack: a summary per service, in
// the generator's order (url, then duet_url).
type AttackResponse struct {
	Summaries []load.Summary `json:"summaries"`
	// Results are each service's results in vegeta's encoding, when
	// asked for.
	Results [][]byte `json:"results,omitempty"`
	Error   string   `json:"error,omitempty"`
}

type server struct {
	guard      Guard
	maxBody    int64 // of a control request
	mu         sync.Mutex
	next       int
	generators map[string]*generator
	lastUsed   time.Time
	inFlight   int // requests being served: an attack may outlast IdleExit
}

// Serve serves the protocol on addr, admitting what guard admits, until
// no control request came for idle.
func Serve(addr string, idle time.Duration, guard Guard) error {
	if err := guard.check(); err != nil {
		return err
	}
	s := newServer(guard)
	srv := &http.Server{Addr: addr, Handler: s.handler()}
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

func newServer(guard Guard) *server {
	return &server{guard: guard, maxBody: maxControlBytes, generators: map[string]*generator{}, lastUsed: time.Now()}
}

// handler routes the protocol. Only control requests with the token count
// as use: the readiness probe or a stranger must not keep an idle server
// alive.
func (s *server) handler() http.Handler {
	control := http.NewServeMux()
	control.HandleFunc("POST /generators", s.create)
	control.HandleFunc("POST /generators/{id}/attack", s.attack)
	control.HandleFunc("DELETE /generators/{id}", s.remove)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("/", s.guard.authorized(s.touching(http.MaxBytesHandler(control, s.maxBody))))
	return mux
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
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		status, msg := decodeError(err)
		http.Error(w, msg, status)
		return
	}
	if req.URL == "" || !(req.Rate > 0) || len(req.Requests) == 0 {
		http.Error(w, "bad generator request: url, rate and requests are required", http.StatusBadRequest)
		return
	}
	if err := req.checkLimits(); err != nil {
		http.Error(w, "bad generator request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.inScope(req); err != nil {
		http.Error(w, "generator refused: "+err.Error(), http.StatusForbidden)
		return
	}
	if req.Ready != "" {
		for _, u := range req.services() {
			if err := waitReady(r.Context(), u+req.Ready, req.ReadyTimeout); err != nil {
				http.Error(w, err.Error(), http.StatusGatewayTimeout)
				return
			}
		}
	}
	gen := &generator{services: 1, Generator: load.New(req.URL, req.Rate, req.Timeout, req.Requests)}
	if req.DuetURL != "" {
		gen = &generator{services: 2, Generator: load.NewDuet([2]string{req.URL, req.DuetURL}, req.Rate, req.Timeout, req.Requests, req.Swap)}
	}
	s.mu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	s.generators[id] = gen
	s.mu.Unlock()
	writeJSON(w, map[string]string{"id": id})
}

func (s *server) attack(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	gen := s.generators[r.PathValue("id")]
	s.mu.Unlock()
	var req AttackRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		status, msg := decodeError(err)
		http.Error(w, msg, status)
		return
	}
	if gen == nil {
		http.Error(w, "no generator "+r.PathValue("id")+" on this load generator", http.StatusNotFound)
		return
	}
	if req.Duration <= 0 {
		http.Error(w, "bad attack request: duration_ns must be more than 0", http.StatusBadRequest)
		return
	}
	if err := req.checkLimits(); err != nil {
		http.Error(w, "bad attack request: "+err.Error(), http.StatusBadRequest)
		return
	}
	a := load.Attack{Name: req.Name, Duration: req.Duration, OpenPool: req.OpenPool}
	if req.CountFrom >= 0 {
		a.CountFrom = time.Now().Add(req.CountFrom)
	}
	results := make([]bytes.Buffer, gen.services)
	if req.KeepResults {
		for i := range results {
			a.Outs = append(a.Outs, &results[i])
		}
	}
	summaries, err := gen.AttackAll(r.Context(), a)
	resp := AttackResponse{Summaries: summaries}
	if req.KeepResults {
		for i := range results {
			resp.Results = append(resp.Results, results[i].Bytes())
		}
	}
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

// generator is a load.Generator of one service, or of a duet's two.
type generator struct {
	*load.Generator
	services int
}

// services are the base URLs the generator sends to: URL, and DuetURL
// for a duet.
func (n NewGenerator) services() []string {
	if n.DuetURL == "" {
		return []string{n.URL}
	}
	return []string{n.URL, n.DuetURL}
}

// inScope checks every URL the generator would send to, composed as
// load.New, load.NewDuet and waitReady compose them: each service's base
// URL, each request's, and the readiness URL.
func (s *server) inScope(req NewGenerator) error {
	fields := []string{"url", "duet_url"}
	for k, base := range req.services() {
		if err := s.guard.allows(base); err != nil {
			return fmt.Errorf("%s: %w", fields[k], err)
		}
		for i, r := range req.Requests {
			if err := s.guard.allows(base + r.Path); err != nil {
				return fmt.Errorf("requests[%d] at %s: %w", i, fields[k], err)
			}
		}
		if req.Ready != "" {
			if err := s.guard.allows(base + req.Ready); err != nil {
				return fmt.Errorf("ready at %s: %w", fields[k], err)
			}
		}
	}
	return nil
}

// waitReady polls url until it answers 2xx or timeout passes.
func waitReady(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var last string // the latest answer, or why there was none
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
