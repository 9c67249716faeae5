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
	"strings"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// MaxResponseBody is the most of each response body the generator reads
// into memory; the rest is read and discarded. Nothing downstream needs a
// body, and a service answering with huge ones must not exhaust perfgate's
// memory (vegeta keeps a result per request in flight). Summary.BytesIn
// counts at most this much of each response.
const MaxResponseBody = 1 << 20

// ResultsFile is the name of the file in a run's directory that keeps its
// window's results in vegeta's binary encoding (`vegeta report` reads it;
// so does the per-endpoint comparison).
const ResultsFile = "results.bin"

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

// DuetAttacker is an Attacker of two services at once (a duet): AttackAll
// returns one summary per service and writes each service's results to
// its own writer of Attack.Outs. Generator made by NewDuet is one; so is
// the in-cluster generator a target runs for two services (loadgen).
type DuetAttacker interface {
	Attacker
	AttackAll(ctx context.Context, a Attack) ([]Summary, error)
}

// Generator attacks one service instance, or two at once (a duet). It
// keeps its connections across the warm-up and the measured window, as a
// real client pool would: each attack needs its own vegeta.Attacker (one
// that finished stays stopped), so the HTTP client is shared instead.
type Generator struct {
	client *http.Client
	// services are the base URLs attacked; results are told apart by
	// their URL's prefix.
	services []string
	// targets are the request mix, in the order sent.
	targets  []vegeta.Target
	targeter vegeta.Targeter
	// rate is the total rate: the per-service rate times the services.
	rate float64
}

// New returns a generator for the service at baseURL (http://127.0.0.1:PORT).
func New(baseURL string, rate float64, timeout time.Duration, requests []Request) *Generator {
	return newGenerator([]string{baseURL}, rate, timeout, roundRobin(baseURL, requests))
}

// NewDuet returns a generator that sends every request of the mix to both
// services, at rate each, in the balanced order of BalancedOrder; swap
// makes the second service lead the cycle instead of the first.
func NewDuet(baseURLs [2]string, rate float64, timeout time.Duration, requests []Request, swap bool) *Generator {
	return newGenerator(baseURLs[:], 2*rate, timeout, balanced(baseURLs, requests, swap))
}

func newGenerator(services []string, rate float64, timeout time.Duration, targets []vegeta.Target) *Generator {
	client := &http.Client{
		Timeout: timeout,
		// Never a proxy: load only goes to the service under test.
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: vegeta.DefaultConnections,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Generator{client: client, services: services, targets: targets, targeter: vegeta.NewStaticTargeter(targets...), rate: rate}
}

// Dial is how a generator connects to a service, with the signature of
// http.Transport's DialContext.
type Dial func(ctx context.Context, network, address string) (net.Conn, error)

// DialWith makes g connect through dial (a service reached from another
// network namespace, target.Dialed) instead of from this machine's
// network. Call it before g's first attack.
func (g *Generator) DialWith(dial Dial) *Generator {
	g.client.Transport.(*http.Transport).DialContext = dial
	return g
}

// Close releases the generator's idle connections.
func (g *Generator) Close() { g.client.CloseIdleConnections() }

// Attack is one attack of a run.
type Attack struct {
	Name     string
	Duration time.Duration
	// Out receives every result in vegeta's binary encoding (readable by
	// `vegeta report`); nil keeps none. A duet's Outs has one per service.
	Out  io.Writer
	Outs []io.Writer
	// CountFrom, when set, makes Summary.RequestsFrom count the requests
	// sent at or after it (a profile that started mid-attack covers those).
	CountFrom time.Time
	// OpenPool opens the generator's connections to each service before
	// the attack's paced requests (openPool); the warm-up asks for it.
	OpenPool bool
}

// Attack sends load at the generator's rate and summarises it. A cancelled
// ctx stops the attack early; the summary then covers what was sent.
func (g *Generator) Attack(ctx context.Context, a Attack) (Summary, error) {
	if a.Out != nil {
		a.Outs = []io.Writer{a.Out}
	}
	summaries, err := g.AttackAll(ctx, a)
	if len(summaries) == 0 {
		return Summary{}, err
	}
	return summaries[0], err
}

// AttackAll is Attack with one summary per service, in the order the
// generator was given them. The pacing figures (lag, generator CPU) are
// the generator's and the same in each.
func (g *Generator) AttackAll(ctx context.Context, a Attack) ([]Summary, error) {
	name, d := a.Name, a.Duration
	pacer := vegeta.ConstantPacer{Freq: int(g.rate), Per: time.Second}
	if g.rate != float64(int(g.rate)) {
		// Fractional rates: pace per minute to keep the precision.
		pacer = vegeta.ConstantPacer{Freq: int(g.rate * 60), Per: time.Minute}
	}
	n := len(g.services)
	encoders := make([]*vegeta.Encoder, n)
	for i := range min(n, len(a.Outs)) {
		if a.Outs[i] != nil {
			enc := vegeta.NewEncoder(a.Outs[i])
			encoders[i] = &enc
		}
	}
	interval := time.Duration(float64(time.Second) / g.rate)
	var (
		metrics = make([]vegeta.Metrics, n)
		lags    []time.Duration
		began   time.Time
		// requestsFrom counts results sent at or after a.CountFrom, and
		// the pool's requests written then.
		requestsFrom = make([]uint64, n)
		perSecond    = make([][]uint64, n)
	)
	if a.OpenPool {
		// Before the generator's CPU and wall clock start: the bursts are
		// not paced, and their requests are not results.
		requestsFrom = g.openPool(ctx, a.CountFrom)
	}
	cpuBefore := selfCPU()
	wallBefore := time.Now()
	attacker := vegeta.NewAttacker(vegeta.Client(g.client), vegeta.MaxBody(MaxResponseBody))
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
		i := g.serviceOf(res.URL)
		if !a.CountFrom.IsZero() && !res.Timestamp.Before(a.CountFrom) {
			requestsFrom[i]++
		}
		if s := int(res.Timestamp.Sub(wallBefore) / time.Second); s >= 0 {
			for len(perSecond[i]) <= s {
				perSecond[i] = append(perSecond[i], 0)
			}
			perSecond[i][s]++
		}
		// Bodies and headers are not needed downstream and would make
		// the results file as large as every response.
		res.Body, res.Headers = nil, nil
		metrics[i].Add(res)
		if encoders[i] != nil && encodeErr == nil {
			encodeErr = encoders[i].Encode(res)
		}
	}
	if encodeErr != nil {
		return nil, fmt.Errorf("write vegeta results: %w", encodeErr)
	}
	generatorCPU, generatorWall := selfCPU()-cpuBefore, time.Since(wallBefore).Nanoseconds()
	lagP99, lagMax := lagQuantiles(lags)
	summaries := make([]Summary, n)
	for i := range metrics {
		metrics[i].Close()
		s := summarise(&metrics[i], d)
		s.TargetRate = g.rate / float64(n)
		s.RequestsFrom = requestsFrom[i]
		s.GeneratorCPUNanos, s.GeneratorWallNanos = generatorCPU, generatorWall
		s.PacerLagP99, s.PacerLagMax = lagP99, lagMax
		s.Began = wallBefore
		s.RequestsPerSecond = perSecond[i]
		summaries[i] = s
	}
	return summaries, ctx.Err()
}

// serviceOf is the index of the service a result's URL belongs to.
func (g *Generator) serviceOf(url string) int {
	for i, base := range g.services {
		if strings.HasPrefix(url, base+"/") {
			return i
		}
	}
	return 0
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
