package initconfig

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Plan is what init inferred about one service: the values of its
// perfgate.yml, why each was chosen, and what it could not infer.
type Plan struct {
	Package  string
	Args     []string
	Env      [][2]string
	Ready    string
	Pprof    string
	Requests []string
	// Why holds, per perfgate.yml key, the reason for its value.
	Why map[string]string
	// Todo is what init could not infer, each as the change to make.
	Todo []string
	// OtherServices are the module's other HTTP commands.
	OtherServices []string
}

// ErrNoService is returned when no command of the module serves HTTP.
var ErrNoService = errors.New("no HTTP service found")

// Inspect reads the module at dir and plans the gate of its first HTTP
// service.
func Inspect(dir string) (*Plan, error) {
	m, err := loadModule(dir)
	if err != nil {
		return nil, err
	}
	mains := m.mainPackages()
	if len(mains) == 0 {
		return nil, fmt.Errorf("%w: %s (module %s) has no main package; point --dir at the module that holds the service's command", ErrNoService, dir, m.path)
	}
	var plan *Plan
	var others []string
	for _, main := range mains {
		f := newFacts()
		for _, p := range m.closure(main) {
			for _, file := range p.files {
				f.read(file)
			}
		}
		if len(f.listeners) == 0 {
			continue
		}
		f.bindFlagTags()
		f.deriveEnvconfigNames()
		if plan == nil {
			plan = planService(packageArg(main.dir), f)
		} else {
			others = append(others, packageArg(main.dir))
		}
	}
	if plan == nil {
		var names []string
		for _, p := range mains {
			names = append(names, packageArg(p.dir))
		}
		return nil, fmt.Errorf("%w: none of the main packages of %s (%s) calls http.ListenAndServe, builds an http.Server or runs a gin, echo or fiber router; perfgate gates HTTP services", ErrNoService, dir, strings.Join(names, ", "))
	}
	plan.OtherServices = others
	if len(others) > 0 {
		plan.Why["service.package"] += fmt.Sprintf("; the module has other HTTP commands too (%s): set service.package to gate one of them instead", strings.Join(others, ", "))
	}
	// The changes quote file names and paths from the module; each stays
	// one line on the terminal.
	for i, todo := range plan.Todo {
		plan.Todo[i] = singleLine(todo)
	}
	return plan, nil
}

// planService decides every value for one command from its facts.
func planService(pkg string, f *facts) *Plan {
	plan := &Plan{Package: pkg, Why: map[string]string{}}
	primary, admin := splitListeners(f.listeners)
	plan.Why["service.package"] = fmt.Sprintf("the command whose listener is at %s (%s)", primary.at, primary.kind)

	address := chooseAddress(primary, f.values, serviceListener, source{})
	switch {
	case address.found:
		plan.Args, plan.Env = address.args, address.env
		plan.Why["service.address"] = address.explain
	case address.hardCoded != "":
		plan.Args = []string{"--addr", "{addr}"}
		plan.Why["service.address"] = "ASSUMED: a flag --addr the service does not have yet (see the change below)"
		plan.Todo = append(plan.Todo, fmt.Sprintf(
			"the address is hard-coded to %s in %s: read it from a flag (addr := flag.String(\"addr\", %q, \"host:port to listen on\")) or from $PORT, so perfgate can give each process a port of its own (base and head run at the same time); this file assumes a flag --addr",
			address.hardCoded, primary.at, address.hardCoded))
	default:
		plan.Args = []string{"--addr", "{addr}"}
		plan.Why["service.address"] = "ASSUMED: init found no flag or variable for the address (see the change below)"
		plan.Todo = append(plan.Todo, fmt.Sprintf(
			"could not tell where the listener at %s (%s) gets its address: this file assumes a flag --addr; if the service reads the address elsewhere, write it in service.args or service.env with {addr} (127.0.0.1:PORT) or {port}",
			primary.at, primary.kind))
	}

	addressSources := planPprof(plan, f, primary, admin, address.used)
	planOtherListeners(plan, f)
	planEnvironment(plan, f, append(address.related, addressSources...))
	routes := serviceRoutes(f.routes, primary, admin)
	planReady(plan, routes)
	planRequests(plan, routes, f)
	return plan
}

// splitListeners tells the service's listener from an admin one: a
// listener on http.DefaultServeMux (or with debug, pprof, admin or
// metrics in its address) beside one with a handler of its own is the
// admin listener, as in the common `go http.ListenAndServe("localhost:6060", nil)`.
func splitListeners(all []listener) (primary listener, admin *listener) {
	adminLike := func(l listener) bool {
		for _, n := range append(append([]string(nil), l.addr.names...), literalValues(l.addr.literals)...) {
			n = strings.ToLower(n)
			for _, word := range []string{"debug", "pprof", "admin", "metrics", "diag", "6060"} {
				if strings.Contains(n, word) {
					return true
				}
			}
		}
		for _, s := range l.addr.sources {
			if strings.Contains(strings.ToLower(s.name), "debug") || strings.Contains(strings.ToLower(s.name), "pprof") || strings.Contains(strings.ToLower(s.name), "admin") {
				return true
			}
		}
		return false
	}
	var own, adminCandidates []listener
	hasOwnHandler := false
	for _, l := range all {
		if !l.defaultMux {
			hasOwnHandler = true
		}
	}
	for _, l := range all {
		if adminLike(l) || (l.defaultMux && hasOwnHandler) {
			adminCandidates = append(adminCandidates, l)
		} else {
			own = append(own, l)
		}
	}
	if len(own) == 0 {
		return all[0], nil
	}
	primary = own[0]
	for _, l := range own {
		if !l.background {
			primary = l
			break
		}
	}
	if len(adminCandidates) > 0 {
		a := adminCandidates[0]
		admin = &a
	}
	return primary, admin
}

func literalValues(ls []literal) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.value)
	}
	return out
}

// onAdmin reports whether a router variable belongs to the admin
// listener's handler rather than the service's.
func onAdmin(receiver string, primary listener, admin *listener) bool {
	return admin != nil && receiver != "" && contains(admin.handlerNames, receiver) && !contains(primary.handlerNames, receiver)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// planOtherListeners gives every other address the service listens on by
// default (envconfig's default:"0.0.0.0:2500" on an SMTP listener beside
// the HTTP one) a free port of its own, 127.0.0.1:0: base and head run at
// the same time, and the second to start would find a fixed port taken.
func planOtherListeners(plan *Plan, f *facts) {
	set := envSet(plan)
	var named []string
	var at position
	for _, l := range f.envListens {
		if set[l.name] {
			continue
		}
		if len(named) == 0 {
			at = l.at
		}
		set[l.name] = true
		plan.Env = append(plan.Env, [2]string{l.name, "127.0.0.1:0"})
		named = append(named, fmt.Sprintf("$%s (default %s)", l.name, l.value))
	}
	if len(named) > 0 {
		plan.Why["service.env"] = fmt.Sprintf("%s, read at %s, are other listeners of the service: each gets a free port (127.0.0.1:0), because base and head run at the same time and the second to start would find a fixed port taken", strings.Join(named, ", "), at)
	}
}

// envSet is the set of variables perfgate.yml's service.env sets so far.
func envSet(plan *Plan) map[string]bool {
	set := map[string]bool{}
	for _, kv := range plan.Env {
		set[kv[0]] = true
	}
	return set
}

// planEnvironment lists the environment variables the service reads that
// perfgate.yml does not set: perfgate starts the service with only PATH,
// HOME, TMPDIR and GOMAXPROCS, so a variable the service needs (a
// database's URL) must be written in service.env.
func planEnvironment(plan *Plan, f *facts, addressSources []source) {
	set := envSet(plan)
	for _, s := range addressSources {
		if s.kind == fromEnv {
			set[s.name] = true
		}
	}
	dependency := false
	var unset []string
	for name, at := range f.envReads {
		if !set[name] && name != "GOMAXPROCS" && name != "HOME" && name != "PATH" && name != "TMPDIR" {
			unset = append(unset, fmt.Sprintf("$%s (%s)", name, at))
			dependency = dependency || looksLikeDependency(name)
		}
	}
	if len(unset) == 0 {
		return
	}
	sort.Strings(unset)
	todo := fmt.Sprintf("the service reads %s, which perfgate does not set (it starts the service with only PATH, HOME, TMPDIR and GOMAXPROCS): add those it needs to service.env", strings.Join(unset, ", "))
	if dependency {
		todo += "; a database or cache it needs must be running for the gate, and service.reset can put it back in one state before every round (perfgate's docs/dependencies.md)"
	}
	plan.Todo = append(plan.Todo, todo)
}

// looksLikeDependency reports whether a variable's name says it points
// at a database or cache.
func looksLikeDependency(name string) bool {
	n := strings.ToUpper(name)
	for _, word := range []string{"DATABASE", "DSN", "POSTGRES", "PG", "MYSQL", "MONGO", "REDIS", "CACHE", "DB_"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}
