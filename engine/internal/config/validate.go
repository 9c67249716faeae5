package config

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Methods are the HTTP methods a load request may use.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

var (
	placeholderPattern = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_.-]*\}`)
	envName            = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	httpToken          = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	wholeNumber        = regexp.MustCompile(`^[0-9]+$`)
	schemePrefix       = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
)

func targetWant() string { return "one of " + strings.Join(Targets, ", ") }
func methodWant() string { return "one of " + strings.Join(Methods, ", ") }

// ParseRequest reads the short form of a request, "GET /search?q=alpha".
// It only splits; Parse and Validate check the method and the path.
func ParseRequest(s string) (Request, error) {
	f := strings.Fields(s)
	if len(f) == 2 {
		return Request{Method: f[0], Path: f[1]}, nil
	}
	e := &Error{Value: s, Problem: "is not a request", Want: requestWant}
	switch {
	case len(f) == 1 && strings.HasPrefix(f[0], "/"):
		e.Problem = "has no method"
		e.Hint = "did you mean " + strconv.Quote("GET "+f[0]) + "?"
	case len(f) == 1:
		e.Problem = "has no path"
	case len(f) > 2:
		e.Problem = "has more than a method and a path"
		e.Hint = "escape spaces in the path as %20"
	}
	return Request{}, e
}

// validate checks the values of c, which may come from a file or from
// code; fields that already failed to parse are not checked again.
func (d *diagnostics) validate(c *Config) {
	if c.Version != 1 {
		d.fail("version", strconv.Itoa(c.Version), Error{Problem: "is not supported", Want: "1, the only perfgate.yml version so far"})
	}
	d.validateService(&c.Service)
	d.validateReset(c)
	d.validatePprofListener(c)
	d.validateEnvFrom(c)
	d.validateBuild(c)
	if c.Resources.CPU <= 0 {
		d.fail("resources.cpu", c.Resources.CPU.String(), Error{Problem: "must be more than 0", Want: cpuWant})
	}
	d.validateMemory(c.Resources.Memory)
	if !slices.Contains(Targets, c.Target) {
		e := Error{Problem: "is not a target", Want: targetWant()}
		if s := suggest(c.Target, Targets); s != "" {
			e.Hint = "did you mean " + strconv.Quote(s) + "?"
		}
		d.fail("target", c.Target, e)
	}
	d.validateLoad(&c.Load)
	if !slices.Contains(Experiments, c.Experiment) {
		d.fail("experiment", c.Experiment, Error{Problem: "is not an experiment perfgate runs", Want: experimentWant()})
	}
	if !slices.Contains(LoadFroms, c.Kubernetes.LoadFrom) {
		d.fail("kubernetes.load_from", c.Kubernetes.LoadFrom, Error{Problem: "is not a place perfgate sends load from", Want: loadFromWant()})
	}
	if !slices.Contains(Layouts, c.Layout) {
		d.fail("layout", c.Layout, Error{Problem: "is not a layout perfgate knows", Want: layoutWant()})
	}
	d.validateLayoutAlign(c)
	d.validateLayoutPairing(c)
	if c.Pairs < 1 || c.Pairs > 1000 {
		d.fail("pairs", strconv.Itoa(c.Pairs), Error{Problem: "is out of range", Want: pairsWant})
	} else if c.MaxPairs < c.Pairs || c.MaxPairs > 1000 {
		d.fail("pairs.max", strconv.Itoa(c.MaxPairs), Error{Problem: "is out of range", Want: pairsMaxWant})
	}
	d.validateProfiles(c.Profiles)
	if c.ProfileRounds < 0 || c.ProfileRounds > 100 {
		d.fail("profile_rounds", strconv.Itoa(c.ProfileRounds), Error{Problem: "is out of range", Want: profileRoundsWant})
	}
	d.validateBounds(c)

	d.validateGate(c.Gate)
	const positive, zeroOff = "a percentage above 0% and at most 100%", "a percentage from 0% to 100%"
	d.share("validity.min_rate", c.Validity.MinRate, false, positive+", like 99%")
	d.share("validity.max_errors", c.Validity.MaxErrors, true, zeroOff+", like 1%")
	if c.Validity.MinCPUSamples < 0 {
		d.fail("validity.min_cpu_samples", strconv.Itoa(c.Validity.MinCPUSamples), Error{Problem: "must not be negative", Want: samplesWant})
	}
	d.share("validity.max_generator_cpu", c.Validity.MaxGeneratorCPU, false, positive+", like 90%")
	d.share("validity.max_shared_cpu", c.Validity.MaxSharedCPU, false, positive+", like 75%")
}

func (d *diagnostics) validateService(s *Service) {
	if problem, hint := packageProblem(s.Package); problem != "" {
		d.fail("service.package", s.Package, Error{Problem: problem, Hint: hint, Want: packageWant})
	}

	told := false // whether the service learns its address
	mentions := func(v string) bool {
		return strings.Contains(v, PlaceholderAddr) || strings.Contains(v, PlaceholderPort)
	}
	for i, a := range s.Args {
		d.placeholders(fmt.Sprintf("service.args[%d]", i), a)
		told = told || mentions(a)
	}
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f := "service.env." + k
		if !envName.MatchString(k) {
			d.failKey(f, k, Error{Problem: "is not an environment variable name", Want: "letters, digits and _, not starting with a digit"})
		}
		d.placeholders(f, s.Env[k])
		told = told || mentions(s.Env[k])
	}
	if !told && !d.anyBad("service.args") && !d.anyBad("service.env") {
		d.fail("service.args", "", Error{
			Problem: "neither service.args nor service.env mentions {addr} or {port}, so the service cannot be told where to listen",
			Want:    `the address passed in, like args: ["-addr", "{addr}"] or env: {PORT: "{port}"}`,
		})
	}

	for _, probe := range []struct{ field, path string }{{"service.ready", s.Ready}, {"service.pprof", s.Pprof}} {
		if problem, hint := pathProblem(probe.path); problem != "" {
			d.fail(probe.field, probe.path, Error{Problem: problem, Hint: hint, Want: probeWant})
		}
	}
	if s.ReadyTimeout <= 0 {
		d.fail("service.ready_timeout", s.ReadyTimeout.String(), Error{Problem: "must be more than 0", Want: durationWant})
	}
}

// packageProblem says why p is not a relative Go package path inside the
// tree being built, with a likely fix.
func packageProblem(p string) (problem, hint string) {
	clean := path.Clean(p)
	switch {
	case p == "":
		return "is missing", ""
	case strings.Contains(p, `\`):
		return "uses backslashes", "write it with /, like ./cmd/server"
	case path.IsAbs(p) || len(p) > 1 && p[1] == ':':
		return "is absolute", "write it relative to the root of the tree being built"
	case strings.Contains(p, "..."):
		return "is a pattern", "name the one package to build"
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "leaves the tree being built", "the package must be inside the repository"
	case p != "." && !strings.HasPrefix(p, "./"):
		if strings.Contains(strings.Split(p, "/")[0], ".") {
			return "is an import path, not a relative path", "write it relative to the root of the tree being built, like ./cmd/server"
		}
		return "is not relative", "did you mean " + strconv.Quote("./"+p) + "?"
	}
	return "", ""
}

// placeholders reports {name} placeholders other than {addr}, {port},
// {pprof_addr} and {pprof_port}.
func (d *diagnostics) placeholders(field, value string) {
	for _, m := range placeholderPattern.FindAllString(value, -1) {
		if usesPlaceholder(m) {
			continue
		}
		e := Error{Problem: "uses the unknown placeholder " + m, Want: "only {addr} (127.0.0.1:PORT), {port}, and {pprof_addr} and {pprof_port} for a pprof listener of the service's own"}
		name := strings.ToLower(strings.Trim(m, "{}"))
		switch {
		case strings.Contains(name, "pprof") && strings.Contains(name, "port"):
			e.Hint = "did you mean {pprof_port}?"
		case strings.Contains(name, "pprof") || strings.Contains(name, "debug"):
			e.Hint = "did you mean {pprof_addr}?"
		case strings.HasPrefix(name, "addr") || strings.HasPrefix(name, "host"):
			e.Hint = "did you mean {addr}?"
		case suggest(name, []string{"port"}) != "" || strings.HasPrefix(name, "port"):
			e.Hint = "did you mean {port}?"
		}
		d.fail(field, value, e)
	}
}

func (d *diagnostics) anyBad(prefix string) bool {
	for f := range d.bad {
		if f == prefix || strings.HasPrefix(f, prefix+".") || strings.HasPrefix(f, prefix+"[") {
			return true
		}
	}
	return false
}

func (d *diagnostics) validateMemory(m Bytes) {
	if m >= 1<<20 {
		return
	}
	e := Error{Problem: "is less than 1Mi", Want: "at least 1Mi, " + bytesWant}
	if m <= 0 {
		e.Problem = "must be more than 0"
	} else if raw := d.raw["resources.memory"]; wholeNumber.MatchString(raw) {
		e.Problem = "is " + raw + " bytes, less than 1Mi"
		e.Hint = "did you mean " + strconv.Quote(raw+"Mi") + "?"
	}
	d.fail("resources.memory", m.String(), e)
}

func (d *diagnostics) validateLoad(l *LoadSpec) {
	if !(l.Rate > 0) {
		d.fail("load.rate", strconv.FormatFloat(l.Rate, 'g', -1, 64), Error{Problem: "must be more than 0", Want: rateWant})
	}
	if l.Warmup < 0 {
		d.fail("load.warmup", l.Warmup.String(), Error{Problem: "is negative", Want: durationWant + ", or 0 for no warm-up"})
	}
	if l.Duration < Duration(time.Second) {
		d.fail("load.duration", l.Duration.String(), Error{Problem: "is shorter than 1s", Want: "a measured window of at least 1s, like 10s"})
	} else if l.Duration%Duration(time.Second) != 0 {
		// net/http/pprof takes ?seconds= as an integer, so the profiles
		// can only cover whole-second windows.
		d.fail("load.duration", l.Duration.String(), Error{Problem: "is not a whole number of seconds", Want: "a window in whole seconds, like 10s (pprof profiles last whole seconds)"})
	}
	if l.Timeout <= 0 {
		d.fail("load.timeout", l.Timeout.String(), Error{Problem: "must be more than 0", Want: durationWant})
	}
	if len(l.Requests) == 0 {
		d.fail("load.requests", "", Error{Problem: "is empty", Want: "at least one request, like [GET /]"})
	}
	for i, r := range l.Requests {
		d.validateRequest(fmt.Sprintf("load.requests[%d]", i), r)
	}
	d.validateBodies(l.Requests)
}

func (d *diagnostics) validateRequest(f string, r Request) {
	if !slices.Contains(Methods, r.Method) {
		e := Error{Problem: "is not an HTTP method perfgate sends", Want: methodWant()}
		switch {
		case r.Method == "":
			e.Problem = "is empty"
		case slices.Contains(Methods, strings.ToUpper(r.Method)):
			e.Hint = "did you mean " + strconv.Quote(strings.ToUpper(r.Method)) + "?"
		case !httpToken.MatchString(r.Method):
			e.Problem = "is not an HTTP method"
		}
		d.fail(f+".method", r.Method, e)
	}
	if problem, hint := pathProblem(r.Path); problem != "" {
		d.fail(f+".path", r.Path, Error{Problem: problem, Hint: hint, Want: "a path on the service like /search?q=alpha"})
	}
	names := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	canonical := map[string]string{}
	for _, k := range names {
		hf := f + ".headers." + k
		switch {
		case !httpToken.MatchString(k):
			d.failKey(hf, k, Error{Problem: "is not a header name", Want: "letters, digits and -, like Content-Type"})
		case strings.EqualFold(k, "Host"):
			d.failKey(hf, k, Error{Problem: "cannot be set", Want: "no Host header: load only goes to the service under test, and perfgate addresses it itself"})
		case canonical[http.CanonicalHeaderKey(k)] != "":
			d.failKey(hf, k, Error{Problem: "is the same header as " + canonical[http.CanonicalHeaderKey(k)], Want: "each header once (names ignore case)"})
		}
		canonical[http.CanonicalHeaderKey(k)] = k
		if strings.ContainsAny(r.Headers[k], "\r\n\x00") {
			d.fail(hf, r.Headers[k], Error{Problem: "contains a line break", Want: "a header value on one line"})
		}
	}
}

// pathProblem says why p cannot be a path on the service under test, with
// a likely fix. Load and probes only ever go to that service, so a path
// must not name a scheme or a host.
func pathProblem(p string) (problem, hint string) {
	if p == "" {
		return "is empty", ""
	}
	if strings.HasPrefix(p, "//") || schemePrefix.MatchString(p) {
		rest := p[strings.Index(p, "//")+2:]
		local := "/"
		if j := strings.IndexAny(rest, "/?"); j >= 0 {
			local = rest[j:]
			if !strings.HasPrefix(local, "/") {
				local = "/" + local
			}
		}
		return "names a host", "load only goes to the service under test; write just the path, like " + strconv.Quote(local)
	}
	if !strings.HasPrefix(p, "/") {
		return "does not start with /", "did you mean " + strconv.Quote("/"+p) + "?"
	}
	if strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "contains spaces or control characters", "escape them, like %20 for a space"
	}
	if _, err := url.ParseRequestURI(p); err != nil {
		return "is not a valid path", ""
	}
	return "", ""
}

// share checks a Fraction lies in (0, 100%], or [0, 100%] when zeroOK.
// A plain number above 1 was most likely meant as a percentage.
func (d *diagnostics) share(field string, f Fraction, zeroOK bool, want string) {
	if f > 0 && f <= 1 || zeroOK && f == 0 {
		return
	}
	e := Error{Problem: "is out of range", Want: want}
	if raw := d.raw[field]; f > 1 && f <= 100 && !strings.Contains(raw, "%") {
		e.Hint = "did you mean " + strconv.Quote(strings.TrimSpace(raw)+"%") + "?"
	}
	d.fail(field, f.String(), e)
}

// validateProfiles reports unknown and repeated profile names.
func (d *diagnostics) validateProfiles(profiles []string) {
	seen := map[string]int{}
	for i, p := range profiles {
		f := fmt.Sprintf("profiles[%d]", i)
		if !slices.Contains(Profiles, p) {
			e := Error{Problem: "is not a profile perfgate captures", Want: "some of " + strings.Join(Profiles, ", ")}
			if s := suggest(p, Profiles); s != "" {
				e.Hint = "did you mean " + strconv.Quote(s) + "?"
			}
			d.fail(f, p, e)
			continue
		}
		if j, dup := seen[p]; dup {
			d.fail(f, p, Error{Problem: fmt.Sprintf("is listed twice (also profiles[%d])", j), Want: "each profile once"})
			continue
		}
		seen[p] = i
	}
}

// ValidateGate checks gate thresholds that come from elsewhere than a
// perfgate.yml (a trend.json another job wrote), with perfgate.yml's
// rules; source names where they came from in the error.
func ValidateGate(source string, g Gate) error {
	d := newDiagnostics(source)
	d.validateGate(g)
	return d.err()
}

// validateGate checks the gate: section's thresholds.
func (d *diagnostics) validateGate(g Gate) {
	const positive, zeroOff = "a percentage above 0% and at most 100%", "a percentage from 0% to 100%"
	d.share("gate.cpu", g.CPU, false, positive)
	d.share("gate.allocs", g.Allocs, false, positive)
	d.share("gate.bytes", g.Bytes, false, positive)
	d.share("gate.errors", g.Errors, true, zeroOff+"; 0% fails on any significant new errors")
	d.share("gate.latency", g.Latency, true, zeroOff+"; 0% means latency does not gate")
	if g.Goroutines < 0 {
		d.fail("gate.goroutines", strconv.FormatFloat(g.Goroutines, 'g', -1, 64), Error{Problem: "must not be negative", Want: goroutinesWant})
	}
	if g.Heap < 0 {
		d.fail("gate.heap", g.Heap.String(), Error{Problem: "must not be negative", Want: heapWant})
	}
	if !(g.Alpha > 0 && g.Alpha <= 0.5) {
		d.fail("gate.alpha", strconv.FormatFloat(g.Alpha, 'g', -1, 64), Error{Problem: "is out of range", Want: alphaWant})
	}
}
