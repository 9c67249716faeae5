package loadgen

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// The server's environment, set by whoever starts it (the kubernetes
// target's Job): TokenEnv is the run's token, TargetsEnv the hosts it may
// send load to, comma-separated host:port (e.g. "10.96.3.7:80").
const (
	TokenEnv   = "PERFGATE_LOADGEN_TOKEN"
	TargetsEnv = "PERFGATE_LOADGEN_TARGETS"
)

// TokenHeader carries the run's token on every control request. It is not
// Authorization because perfgate reaches the server through the API
// server's pod proxy, which takes that header as the caller's credentials
// for itself and does not pass it on.
const TokenHeader = "Perfgate-Token"

// RefusalWords are in the generator's answer to a call without the run's
// token: perfgate looks for them before it sends the token to an address
// it is not sure is its generator's (kubernetes.load_from).
const RefusalWords = "this load generator serves only the perfgate run that started it"

// The limits on one generator and one attack. A real gate is far below
// each; they keep a server whose token leaked from being turned into a
// flood of unbounded rate, length or memory.
const (
	MaxRate     = 50_000           // requests per second
	MaxDuration = 10 * time.Minute // one attack, a request's timeout, the wait for readiness
	MaxRequests = 10_000           // requests in a generator's mix
	// MaxBodyBytes and MaxBodiesBytes are perfgate.yml's own limits, so
	// every valid config fits.
	MaxBodyBytes   = config.MaxBodyBytes
	MaxBodiesBytes = config.MaxBodiesBytes
	// maxControlBytes bounds a control request's JSON: the bodies at their
	// limit, escaped (a byte becomes at most six: \u00XX), and room for
	// methods, paths and headers.
	maxControlBytes = 6*MaxBodiesBytes + 16<<20
)

// tokenBytes is the token's entropy: 256 bits.
const tokenBytes = 32

// Guard is what a server admits: control requests that carry Token, and
// load only to Targets.
type Guard struct {
	Token string
	// Targets are the hosts load may go to, as host:port; an attack URL's
	// host and port must equal one of them exactly.
	Targets []string
}

// NewToken returns a fresh random token for one run.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the load generator's token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// GuardFromEnv reads the guard from TokenEnv and TargetsEnv.
func GuardFromEnv() (Guard, error) {
	g := Guard{Token: os.Getenv(TokenEnv)}
	for _, t := range strings.Split(os.Getenv(TargetsEnv), ",") {
		if t = strings.TrimSpace(t); t != "" {
			g.Targets = append(g.Targets, t)
		}
	}
	return g, g.check()
}

// check refuses a guard that would admit anyone or allow no target.
func (g Guard) check() error {
	if len(g.Token) < 2*16 {
		return fmt.Errorf("the load generator needs a token of at least 128 bits (32 hex digits) in %s, and has %d characters; it serves only the run that started it", TokenEnv, len(g.Token))
	}
	if len(g.Targets) == 0 {
		return fmt.Errorf("the load generator needs the hosts it may load in %s (host:port, comma-separated), and has none", TargetsEnv)
	}
	for _, t := range g.Targets {
		if _, _, err := net.SplitHostPort(t); err != nil {
			return fmt.Errorf("%s: %q is not host:port: %w", TargetsEnv, t, err)
		}
	}
	return nil
}

// authorized serves next only to requests that carry the token, compared
// in constant time; others get 401 and nothing happens.
func (g Guard) authorized(next http.Handler) http.Handler {
	want := []byte(g.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), want) != 1 {
			http.Error(w, "missing or wrong "+TokenHeader+" header: "+RefusalWords, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allows says whether load may go to rawURL: plain http, no user info,
// and a host and port equal to one of the targets. The URL is parsed as
// the attack will parse it, so a path such as "@elsewhere/" that moves the
// host is seen as the host it becomes.
func (g Guard) allows(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", rawURL, err)
	}
	if u.Scheme != "http" || u.User != nil || u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("%q is not a plain http://host:port URL", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	for _, t := range g.Targets {
		host, tport, _ := net.SplitHostPort(t)
		if u.Hostname() == host && port == tport {
			return nil
		}
	}
	return fmt.Errorf("%q goes to %s, and this load generator sends load only to its run's service (%s)", rawURL, net.JoinHostPort(u.Hostname(), port), strings.Join(g.Targets, ", "))
}

// limitError is a field over its limit: a 400 that names both.
type limitError struct {
	field, value, limit string
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s is %s, and the load generator allows %s", e.field, e.value, e.limit)
}

// checkLimits refuses a generator beyond the limits. A duet's rate is per
// service, and its limit applies to what the generator sends in total.
func (n NewGenerator) checkLimits() error {
	if total := n.Rate * float64(len(n.services())); total > MaxRate {
		if n.DuetURL != "" {
			return &limitError{"rate", fmt.Sprintf("%v per service of a duet (%v in total)", n.Rate, total), fmt.Sprintf("at most %d requests per second in total", MaxRate)}
		}
		return &limitError{"rate", fmt.Sprint(n.Rate), fmt.Sprintf("at most %d requests per second", MaxRate)}
	}
	if err := checkDuration("timeout_ns", n.Timeout); err != nil {
		return err
	}
	if err := checkDuration("ready_timeout_ns", n.ReadyTimeout); err != nil {
		return err
	}
	if len(n.Requests) > MaxRequests {
		return &limitError{"requests", fmt.Sprintf("%d requests", len(n.Requests)), fmt.Sprintf("at most %d", MaxRequests)}
	}
	total := 0
	for i, r := range n.Requests {
		total += len(r.Body)
		if len(r.Body) > MaxBodyBytes {
			return &limitError{fmt.Sprintf("requests[%d].body", i), fmt.Sprintf("%d bytes", len(r.Body)), fmt.Sprintf("at most %d bytes", MaxBodyBytes)}
		}
	}
	if total > MaxBodiesBytes {
		return &limitError{"requests[].body", fmt.Sprintf("%d bytes together", total), fmt.Sprintf("at most %d bytes together", MaxBodiesBytes)}
	}
	return nil
}

// checkLimits refuses an attack beyond the limits.
func (a AttackRequest) checkLimits() error {
	if err := checkDuration("duration_ns", a.Duration); err != nil {
		return err
	}
	if a.CountFrom > a.Duration {
		return &limitError{"count_from_ns", a.CountFrom.String(), "at most duration_ns (" + a.Duration.String() + ")"}
	}
	return nil
}

func checkDuration(field string, d time.Duration) error {
	if d < 0 || d > MaxDuration {
		return &limitError{field, d.String(), "from 0 to " + MaxDuration.String()}
	}
	return nil
}

// decodeError maps a body that failed to decode to its status: 413 past
// maxControlBytes, 400 otherwise.
func decodeError(err error) (int, string) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is more than the %d bytes the load generator reads", tooLarge.Limit)
	}
	return http.StatusBadRequest, "the request body is not the protocol's JSON: " + err.Error()
}
