// Package hints names likely root causes of a change, from signatures in the
// per-function profile deltas and from the runs' counters. Every hint names
// the function or counter and the evidence; docs/hints.md lists the rules.
package hints

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/attribution"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// rule inspects a report and returns its hints (none when it does not apply).
type rule struct {
	name  string
	check func(rep *report.Report) []report.Hint
}

var rules = []rule{
	{"timer-per-request", functionRule("timer-per-request", "allocs", "allocs/req", 0.5,
		[]string{"time.NewTimer", "time.After", "time.newTimer"},
		"%s allocates %+.2g more timers per request: a time.After (or new timer) per call or per loop iteration; create one timer and Stop/Reset it, or use the request context's deadline")},
	{"tls-handshake-per-request", functionRule("tls-handshake-per-request", "cpu", "µs/req", 1,
		[]string{"crypto/tls.(*Conn).Handshake", "crypto/tls.(*Conn).HandshakeContext", "crypto/tls.(*Conn).clientHandshake"},
		"%s costs %+.3g µs more per request: TLS handshakes on every request mean the HTTPS client (or its Transport) is created per request; share one http.Client")},
	{"dial-per-request", functionRule("dial-per-request", "allocs", "allocs/req", 0.5,
		[]string{"net.(*Dialer).DialContext", "net/http.(*Transport).dialConn", "database/sql.(*DB).conn"},
		"%s allocates %+.2g more times per request: a new connection per request means connection reuse was lost (a Transport or http.Client per request, DisableKeepAlives, MaxIdleConnsPerHost too low, or sql.DB SetMaxIdleConns(0))")},
	{"dns-per-request", functionRule("dns-per-request", "allocs", "allocs/req", 0.5,
		[]string{"net.(*Resolver).lookupIPAddr", "net.(*Resolver).LookupHost", "net.(*Resolver).LookupIPAddr"},
		"%s grew by %+.2g allocs per request: a DNS lookup per request; reuse connections, or dial an address")},
	{"mutex-contention", functionRule("mutex-contention", "mutex", "µs/req", 1,
		[]string{"sync.(*Mutex).Unlock", "sync.(*RWMutex).Unlock", "sync.(*RWMutex).RUnlock", "math/rand.(*lockedSource)", "runtime.unlock"},
		"%s: %+.3g µs more lock delay per request: contention on a shared lock (a global mutex or the global math/rand source); shorten the critical section, shard it, or use a per-goroutine source")},
	{"blocked-on-lock", functionRule("blocked-on-lock", "block", "µs/req", 10,
		[]string{"sync.(*Mutex).Lock", "sync.(*RWMutex).Lock", "sync.(*RWMutex).RLock"},
		"%s: %+.3g µs more time blocked per request waiting for a lock: a lock became contended")},
	{"formatting-on-hot-path", functionRule("formatting-on-hot-path", "allocs", "allocs/req", 1,
		[]string{"fmt.Sprintf", "fmt.Sprint", "fmt.Sprintln", "fmt.Fprintf", "fmt.Errorf", "reflect.Value.Interface", "reflect.New", "encoding/json.Marshal"},
		"%s allocates %+.3g more times per request: formatting or reflection on the hot path (a debug string built whether or not it is logged?); build it only when needed, or use strconv/append")},
	{"regexp-compile-per-request", functionRule("regexp-compile-per-request", "cpu", "µs/req", 1,
		[]string{"regexp.Compile", "regexp.MustCompile", "regexp.compile"},
		"%s costs %+.3g µs more per request: a regular expression compiled on every call; compile it once into a package-level variable")},
	{"gc-pressure", gcPressure},
	{"goroutine-growth", goroutineGrowth},
	{"heap-growth", heapGrowth},
	{"heap-fills-up", heapFillsUp},
	{"cpu-throttling", throttling},
	{"gomaxprocs-above-limit", gomaxprocsAboveLimit},
	{"oom-killed", oomKilled},
}

// For applies every rule to a report with its functions and metrics filled.
func For(rep *report.Report) []report.Hint {
	var out []report.Hint
	for _, r := range rules {
		out = append(out, r.check(rep)...)
	}
	return out
}

// Rules names the rules, for documentation and tests.
func Rules() []string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.name
	}
	return names
}

// functionRule fires when a function matching one of names grew by more
// than min in the given profile and unit (flat or cum, whichever is larger).
// The message names the function and, when there is one, the application
// function it is reached from.
func functionRule(name, profile, unit string, min float64, names []string, message string) func(*report.Report) []report.Hint {
	return func(rep *report.Report) []report.Hint {
		var best *report.Function
		for i, f := range rep.Functions {
			if f.Profile != profile || f.Unit != unit || f.Delta <= min || !(matches(f.Name, names) || matches(f.Via, names)) {
				continue
			}
			if best == nil || f.Delta > best.Delta {
				best = &rep.Functions[i]
			}
		}
		if best == nil || !mattersNextToCPU(rep, best) {
			return nil
		}
		subject := describe(rep, best)
		return []report.Hint{{
			Rule:     name,
			Message:  fmt.Sprintf(message, subject, best.Delta),
			Evidence: fmt.Sprintf("%s profile, %s %s: %.4g → %.4g %s (%s)", best.Profile, best.Kind, best.Name, best.Base, best.Head, best.Unit, best.Status),
		}}
	}
}

// mattersNextToCPU keeps lock-delay hints for delays worth a reviewer's
// time: at least 2% of base CPU per request. Mutex and block delays are
// wall time spread over every goroutine; when a change makes each request
// several times more expensive, every shared lock in its path is held a
// little longer, and a microsecond of that is not the story.
func mattersNextToCPU(rep *report.Report, f *report.Function) bool {
	if f.Profile != "mutex" && f.Profile != "block" {
		return true
	}
	cpu := median(rep, metric.CPU)
	return cpu == nil || cpu.BaseRuns == 0 || f.Delta >= 0.02*cpu.Base
}

// describe names a function row for a hint: the function, the line with
// most of its samples, the runtime function it spent them in, and the
// service's own function (and line) that reached it, or, when no stack
// of it has one (a Transport dials and handshakes on goroutines of its
// own), the service's function whose cost grew with it.
func describe(rep *report.Report, f *report.Function) string {
	subject := f.Name
	if f.CallLine > 0 {
		subject += fmt.Sprintf(" line %d", f.CallLine)
	}
	if f.Via != "" {
		subject += " (in " + f.Via + ")"
	}
	code := attribution.OwnCode(rep.Build.Head.BuildInfo, rep.Build.Base.BuildInfo)
	switch {
	case f.Caller != "" && f.CallerLine > 0:
		subject += fmt.Sprintf(" (reached from %s line %d)", f.Caller, f.CallerLine)
	case f.Caller != "":
		subject += " (reached from " + f.Caller + ")"
	case code.Owns(f.Name):
		// A row of the service's own code without a recorded caller
		// (a heap site): the own function whose cost grew by at least
		// 80% of its own, which includes it.
		if caller := deepestGrowth(rep, code, f, 0.8*f.Delta); caller != "" {
			subject += " (reached from " + caller + ")"
		}
	default:
		// No stack holds the service's code (a Transport dials and
		// handshakes on goroutines of its own): the service's call into
		// library code whose allocations grew most is where the change
		// reached it (a Transport built per call allocates in the
		// caller's goroutine before it dials in another).
		if site := grownCallSite(rep, code, f); site != "" {
			subject += " (on goroutines without the service's code; the service's call whose cost grew with it: " + site + ")"
		}
	}
	return subject
}

// grownCallSite is the service's own call site (function and line) whose
// callees' rows grew most in f's profile and unit, or, when f's profile
// records no call sites (CPU rows of goroutines without the service's
// code), in allocations per request. A row's call site is the nearest
// frame of the service's code on its stacks (Function.Caller), so this
// names the line where the service calls into what became more costly,
// not a caller further up: summing call sites does not depend on how
// sampling noise ranks a function against its caller (the largest cum
// growth did: a plant's caller outgrew the plant in one gate).
func grownCallSite(rep *report.Report, code attribution.Code, f *report.Function) string {
	for _, in := range [][2]string{{f.Profile, f.Unit}, {"allocs", "allocs/req"}} {
		type site struct {
			name string
			line int64
		}
		grew := map[site]float64{}
		var best site
		for _, r := range rep.Functions {
			if r.Profile != in[0] || r.Unit != in[1] || r.Kind != "flat" || r.Delta <= 0 || r.Caller == "" || !code.Owns(r.Caller) {
				continue
			}
			s := site{r.Caller, r.CallerLine}
			grew[s] += r.Delta
			if best.name == "" || grew[s] > grew[best] {
				best = s
			}
		}
		if best.name == "" {
			continue
		}
		if best.line > 0 {
			return fmt.Sprintf("%s line %d", best.name, best.line)
		}
		return best.name
	}
	return ""
}

// deepestGrowth is the deepest of the service's functions (code) other
// than f whose cost in f's profile grew by at least floor, "" when none
// did or floor is not a growth. Deepest is approximated by the smallest
// such growth, since a caller's cum includes its callees'.
func deepestGrowth(rep *report.Report, code attribution.Code, f *report.Function, floor float64) string {
	if floor <= 0 {
		return ""
	}
	var deepest *report.Function
	for i, c := range rep.Functions {
		if c.Profile != f.Profile || c.Unit != f.Unit || c.Kind != "cum" || c.Name == f.Name ||
			c.Delta < floor || !code.Owns(c.Name) {
			continue
		}
		if deepest == nil || c.Delta < deepest.Delta {
			deepest = &rep.Functions[i]
		}
	}
	if deepest == nil {
		return ""
	}
	return deepest.Name
}

func matches(function string, names []string) bool {
	for _, n := range names {
		if function == n || strings.HasPrefix(function, n+".") {
			return true
		}
	}
	return false
}
