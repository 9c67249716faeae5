package initconfig

import (
	"fmt"
	"strings"
)

// readyPaths are the health-check paths init looks for, best first.
var readyPaths = []string{"/healthz", "/readyz", "/health", "/ready", "/livez", "/status", "/ping"}

// maxRequests is how many GET routes init puts in the load: enough to
// spread the load over more than one handler, few enough to read.
const maxRequests = 4

// riskyWords mark GET routes that are a poor first load: they stream,
// wait, redirect, need credentials or a websocket upgrade, or are the
// service's own plumbing rather than its work.
var riskyWords = []string{"websocket", "/ws", "echo", "stream", "sse", "events", "delay", "sleep", "drip", "redirect",
	"auth", "login", "logout", "admin", "debug", "metrics", "pprof", "upload", "download"}

// serviceRoutes are the routes on the service's listener, leaving out
// those registered on the admin listener's router.
func serviceRoutes(all []route, primary listener, admin *listener) []route {
	var out []route
	for _, r := range all {
		if !onAdmin(r.receiver, primary, admin) {
			out = append(out, r)
		}
	}
	return out
}

// gettable reports whether the route answers GET: registered for GET or
// for any method.
func (r route) gettable() bool { return r.method == "" || r.method == "GET" }

// hasParameters reports whether the path has wildcards that init cannot
// fill in: {id}, :id or *path.
func (r route) hasParameters() bool {
	return strings.ContainsAny(r.path, "{*") || strings.Contains(r.path, "/:")
}

func planReady(plan *Plan, routes []route) {
	for _, want := range readyPaths {
		for _, r := range routes {
			if r.path == want && r.gettable() {
				plan.Ready = want
				plan.Why["service.ready"] = fmt.Sprintf("the handler registered at %s", r.at)
				return
			}
		}
	}
	for _, r := range routes {
		if r.path == "/" && r.gettable() {
			plan.Ready = "/"
			plan.Why["service.ready"] = fmt.Sprintf("no health-check route found; / is registered at %s", r.at)
			return
		}
	}
	for _, r := range routes {
		if r.gettable() && !r.hasParameters() && !isRisky(r.path) {
			plan.Ready = r.path
			plan.Why["service.ready"] = fmt.Sprintf("no health-check route found; the first GET route, registered at %s", r.at)
			return
		}
	}
	plan.Ready = "/"
	plan.Why["service.ready"] = "ASSUMED: no route found that fits (see the change below)"
	plan.Todo = append(plan.Todo, "no route fit as the ready path: none at /healthz, /readyz, /health, /ready, /livez, /status, /ping or /, and no other GET route without path parameters outside /metrics and /debug (routes registered through a variable or a framework init does not read are invisible to it); set service.ready to a path that answers 2xx once the service is ready, like a /healthz handler")
}

func planRequests(plan *Plan, routes []route, f *facts) {
	params := f.queryParams
	seen := map[string]bool{plan.Ready: true}
	var chosen, where, guessed []string
	skipped := 0
	for _, r := range routes {
		if !r.gettable() || seen[r.path] {
			continue
		}
		if r.hasParameters() || isRisky(r.path) || isReadyLike(r.path) || f.unfitRoute(r) {
			skipped++
			continue
		}
		seen[r.path] = true
		if len(chosen) < maxRequests {
			chosen = append(chosen, "GET "+r.path+queryFor(params[r.handler]))
			where = append(where, r.at.String())
			if len(params[r.handler]) > 0 {
				guessed = append(guessed, r.path)
			}
		}
	}
	if len(chosen) == 0 {
		plan.Requests = []string{"GET " + plan.Ready}
		plan.Why["load.requests"] = "ASSUMED: no GET route without parameters found beside the ready path (see the change below)"
		plan.Todo = append(plan.Todo, "load.requests only requests the ready path: no GET route without path parameters was found; write the requests your users make most (\"GET /items?page=2\", or a mapping with method, path, headers and body for POST)")
		return
	}
	plan.Requests = chosen
	plan.Why["load.requests"] = fmt.Sprintf("GET routes registered at %s", strings.Join(where, ", "))
	if skipped > 0 {
		plan.Why["load.requests"] += fmt.Sprintf("; left out: %d more with path parameters, or that look like they stream, take the connection over, read files, wait, redirect or need credentials", skipped)
	}
	if len(guessed) > 0 {
		plan.Why["load.requests"] += fmt.Sprintf("; the handlers of %s read the query parameters given, set to 1 as a placeholder", strings.Join(guessed, ", "))
	}
	plan.Todo = append(plan.Todo, fmt.Sprintf("check load.requests (%s): each must answer 2xx without credentials or data set up beforehand (more than 1%% errors makes a round invalid); add the requests your users make most, with their query strings and bodies", strings.Join(chosen, ", ")))
}

// queryFor is a query string setting each parameter to 1: a handler that
// reads a parameter often refuses a request without it, and more than 1%
// errors makes a round invalid. The value is a placeholder the todo asks
// the user to replace.
func queryFor(params []string) string {
	if len(params) == 0 {
		return ""
	}
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p + "=1"
	}
	return "?" + strings.Join(parts, "&")
}

func isRisky(path string) bool {
	p := strings.ToLower(path)
	for _, w := range riskyWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

func isReadyLike(path string) bool {
	for _, p := range readyPaths {
		if path == p {
			return true
		}
	}
	return false
}
