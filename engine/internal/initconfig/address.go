package initconfig

import (
	"fmt"
	"strings"
)

// role is what a flag or variable name says it holds.
type role int

const (
	roleOther role = iota
	roleAddr       // host:port
	rolePort       // a port number
	roleHost       // a host without a port
)

func roleOf(name string) role {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "port"):
		return rolePort
	case strings.Contains(n, "addr") || strings.Contains(n, "listen") || strings.Contains(n, "bind"):
		return roleAddr
	case strings.Contains(n, "host"):
		return roleHost
	}
	return roleOther
}

// placeholders are the two a listener's address can be given as: the
// service's own ({addr}, {port}) or its pprof listener's.
type placeholders struct{ addr, port string }

var (
	serviceListener = placeholders{"{addr}", "{port}"}
	pprofListener   = placeholders{"{pprof_addr}", "{pprof_port}"}
)

// addressChoice is how perfgate tells one listener where to listen.
type addressChoice struct {
	args    []string
	env     [][2]string
	explain string // why, for a comment in perfgate.yml
	used    source // the flag or variable that carries the port
	found   bool
	// hardCoded is the literal address when the syntax shows only one.
	hardCoded string
	// related are all the flags and variables the address is made of,
	// also those not chosen (go-httpbin's $PORT beside its -port): they
	// need no value of their own.
	related []source
}

// chooseAddress picks the flag or environment variable the listener's
// address comes from, preferring a whole address over a port (perfgate's
// {addr} is a loopback address; a port alone listens on every interface),
// and flags over the environment (a flag that does not exist fails the
// start loudly; a variable that is not read is silently ignored).
func chooseAddress(l listener, g valueGraph, p placeholders, avoid source) addressChoice {
	if l.portFromEnv != "" {
		return addressChoice{
			env:     [][2]string{{l.portFromEnv, p.port}},
			explain: fmt.Sprintf("%s at %s without an address listens on $%s", l.kind, l.at, l.portFromEnv),
			used:    source{kind: fromEnv, name: l.portFromEnv}, found: true,
		}
	}
	if !l.addrKnown {
		return addressChoice{}
	}
	sources := g.resolvePrecisely(l.addr)
	c := chooseFrom(sources, l, p, avoid)
	c.related = sources
	return c
}

// chooseFrom picks among the sources an address is made of. It calls the
// address hard-coded only when the listener's own expression is one
// literal: a literal met through names may be a flag library's default
// (kingpin's Default(":9100")), and saying "hard-coded" then would be
// false.
func chooseFrom(sources []source, l listener, p placeholders, avoid source) addressChoice {
	// byRole prefers the plainest name: names are matched without scopes,
	// so a field called Port may also be bound to grpc-port elsewhere, and
	// "port" is the likelier one for the HTTP listener.
	byRole := func(kind sourceKind, r role) (source, bool) {
		var best source
		found := false
		for _, s := range sources {
			if s.kind == kind && roleOf(s.name) == r && s != avoid && (!found || len(s.name) < len(best.name)) {
				best, found = s, true
			}
		}
		return best, found
	}
	for _, kind := range []sourceKind{fromFlag, fromEnv} {
		if s, ok := byRole(kind, roleAddr); ok {
			return choice(kind, s, p.addr, "", l)
		}
		if s, ok := byRole(kind, rolePort); ok {
			host, _ := byRole(kind, roleHost)
			return choice(kind, s, p.port, host.name, l)
		}
	}
	if looksLikeAddress(l.addr.whole) {
		return addressChoice{hardCoded: l.addr.whole}
	}
	return addressChoice{}
}

// choice writes the arguments or variables for one flag or variable, and
// a host flag or variable beside it set to loopback when there is one.
func choice(kind sourceKind, s source, placeholder, host string, l listener) addressChoice {
	c := addressChoice{used: s, found: true}
	if kind == fromFlag {
		// Two dashes: Go's flag package takes one or two, pflag (cobra,
		// viper) only two for a long name.
		c.args = []string{"--" + s.name, placeholder}
		if host != "" {
			c.args = append(c.args, "--"+host, "127.0.0.1")
		}
		c.explain = fmt.Sprintf("the listener at %s takes its address from the flag --%s", l.at, s.name)
	} else {
		c.env = [][2]string{{s.name, placeholder}}
		if host != "" {
			c.env = append(c.env, [2]string{host, "127.0.0.1"})
		}
		c.explain = fmt.Sprintf("the listener at %s takes its address from $%s", l.at, s.name)
	}
	if host != "" {
		c.explain += fmt.Sprintf(", its host from %s (set to loopback)", sourceText(kind, host))
	}
	return c
}

func sourceText(kind sourceKind, name string) string {
	if kind == fromFlag {
		return "--" + name
	}
	return "$" + name
}

// looksLikeAddress accepts ":8080", "localhost:6060", "0.0.0.0:80" and
// "[::1]:6060".
func looksLikeAddress(s string) bool {
	i := strings.LastIndex(s, ":")
	if i < 0 || i == len(s)-1 {
		return false
	}
	for _, r := range s[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return !strings.ContainsAny(s[:i], "/ ")
}
