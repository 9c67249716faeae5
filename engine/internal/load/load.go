// Package load drives constant-rate (open model) HTTP load at a service
// with the vegeta library and summarises each attack.
package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Request is one target of the round-robin request mix.
type Request struct {
	Method  string
	Path    string
	Headers map[string]string
	Body    string
}

// Attacker is a load generator: Generator here, or one a target runs
// elsewhere (the kubernetes target runs it inside the cluster).
type Attacker interface {
	Attack(ctx context.Context, a Attack) (Summary, error)
	Close()
}

// Generator attacks one service instance. It keeps its connections across
// the warm-up and the measured window, as a real client pool would: each
// attack needs its own vegeta.Attacker (one that finished stays stopped),
// so the HTTP client is shared instead.
type Generator struct {
	client   *http.Client
	targeter vegeta.Targeter
	rate     float64
}

// New returns a generator for the service at baseURL (http://127.0.0.1:PORT).
func New(baseURL string, rate float64, timeout time.Duration, requests []Request) *Generator {
	targets := make([]vegeta.Target, len(requests))
	for i, r := range requests {
		header := http.Header{}
		for k, v := range r.Headers {
			header.Set(k, v)
		}
		targets[i] = vegeta.Target{Method: r.Method, URL: baseURL + r.Path, Body: []byte(r.Body), Header: header}
	}
	client := &http.Client{
		Timeout: timeout,
		// Never a proxy: load only goes to the service under test.
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: vegeta.DefaultConnections,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Generator{client: client, targeter: vegeta.NewStaticTargeter(targets...), rate: rate}
}

// Close releases the generator's idle connections.
func (g *Generator) Close() { g.client.CloseIdleConnections() }

// Attack is one attack of a run.
type Attack struct {
	Name     string
	Duration time.Duration
	// Out receives every result in vegeta's binary encoding (readable by
	// `vegeta report`); nil keeps none.
	Out io.Writer
	// CountFrom, when set, makes Summary.RequestsFrom count the requests
	// sent at or after it (a profile that started mid-attack covers those).
	CountFrom time.Time
}

// Attack sends load at the generator's rate and summarises it. A cancelled
// ctx stops the attack early; the summary then covers what was sent.
func (g *Generator) Attack(ctx context.Context, a Attack) (Summary, error) {
	name, d, out := a.Name, a.Duration, a.Out
	pacer := vegeta.ConstantPacer{Freq: int(g.rate), Per: time.Second}
	if g.rate != float64(int(g.rate)) {
		// Fractional rates: pace per minute to keep the precision.
		pacer = vegeta.ConstantPacer{Freq: int(g.rate * 60), Per: time.Minute}
	}
	var enc vegeta.Encoder
	if out != nil {
		enc = vegeta.NewEncoder(out)
	}
	interval := time.Duration(float64(time.Second) / g.rate)
	var (
		metrics vegeta.Metrics
		lags    []time.Duration
		began   time.Time
		// requestsFrom counts results sent at or after a.CountFrom.
		requestsFrom uint64
	)
	cpuBefore := selfCPU()
	wallBefore := time.Now()
	attacker := vegeta.NewAttacker(vegeta.Client(g.client))
	results := attacker.Attack(g.targeter, pacer, d, name)
	stop := context.AfterFunc(ctx, func() { attacker.Stop() })
	defer stop()
	var encodeErr error
	for res := range results {
		if res.Seq == 0 {
			began = res.Timestamp
		}
		if !began.IsZero() {
			lags = append(lags, res.Timestamp.Sub(began.Add(time.Duration(res.Seq)*interval)))
		}
		if !a.CountFrom.IsZero() && !res.Timestamp.Before(a.CountFrom) {
			requestsFrom++
		}
		// Bodies and headers are not needed downstream and would make
		// the results file as large as every response.
		res.Body, res.Headers = nil, nil
		metrics.Add(res)
		if enc != nil && encodeErr == nil {
			encodeErr = enc.Encode(res)
		}
	}
	metrics.Close()
	if encodeErr != nil {
		return Summary{}, fmt.Errorf("write vegeta results: %w", encodeErr)
	}
	s := summarise(&metrics, d)
	s.TargetRate = g.rate
	s.RequestsFrom = requestsFrom
	s.GeneratorCPUNanos = selfCPU() - cpuBefore
	s.GeneratorWallNanos = time.Since(wallBefore).Nanoseconds()
	s.PacerLagP99, s.PacerLagMax = lagQuantiles(lags)
	return s, ctx.Err()
}

// selfCPU is perfgate's own CPU time (user+system), which during an attack
// is essentially the load generator's.
func selfCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func lagQuantiles(lags []time.Duration) (p99, maxLag time.Duration) {
	if len(lags) == 0 {
		return 0, 0
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	return lags[(len(lags)*99)/100], lags[len(lags)-1]
}
