package initconfig

import (
	"go/ast"
	"net/url"
	"strings"
	"unicode"
)

// pprofMount recognizes net/http/pprof mounted on a router: a handler
// from the pprof package, http.DefaultServeMux under a /debug/pprof path,
// chi's middleware.Profiler() and gin-contrib/pprof's Register.
func (r *fileReader) pprofMount(c *ast.CallExpr, sel *ast.SelectorExpr) bool {
	if r.pprof != "" && isIdent(sel.X, r.pprof) && sel.Sel.Name == "Register" && len(c.Args) >= 1 {
		prefix := "/debug/pprof"
		if len(c.Args) == 2 {
			if p := stringLit(c.Args[1]); p != "" {
				prefix = strings.TrimSuffix(p, "/")
			}
		}
		r.f.mounts = append(r.f.mounts, pprofMount{at: r.pos(c.Pos()), prefix: prefix, receiver: exprName(c.Args[0]), when: r.condition(c)})
		return true
	}
	if len(c.Args) < 2 {
		return false
	}
	pathArg := c.Args[0]
	if len(c.Args) == 3 && stringLit(c.Args[0]) != "" && !strings.HasPrefix(stringLit(c.Args[0]), "/") {
		pathArg = c.Args[1] // chi's Method("GET", "/debug/pprof/", h)
	}
	p := routePath(pathArgument(pathArg))
	if p == "" {
		return false
	}
	handler := c.Args[len(c.Args)-1]
	servesPprof := false
	ast.Inspect(handler, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if (r.pprof != "" && isIdent(s.X, r.pprof)) || (s.Sel.Name == "DefaultServeMux" && isIdent(s.X, r.httpPkg) && strings.Contains(p, "pprof")) || s.Sel.Name == "Profiler" {
				servesPprof = true
			}
		}
		return !servesPprof
	})
	if !servesPprof {
		return false
	}
	prefix := strings.TrimSuffix(p, "/")
	if i := strings.Index(prefix, "pprof"); i >= 0 {
		prefix = prefix[:i+len("pprof")]
	} else {
		prefix += "/pprof" // chi: r.Mount("/debug", middleware.Profiler())
	}
	r.f.mounts = append(r.f.mounts, pprofMount{at: r.pos(c.Pos()), prefix: prefix, receiver: exprName(sel.X), when: r.condition(c)})
	return true
}

// gorillaPath reads gorilla/mux's r.PathPrefix("/debug/pprof/").Handler(h)
// and r.Path("/x").HandlerFunc(h): the path on the inner call, the handler
// on the outer.
func (r *fileReader) gorillaPath(c *ast.CallExpr, sel *ast.SelectorExpr) bool {
	if (sel.Sel.Name != "Handler" && sel.Sel.Name != "HandlerFunc") || len(c.Args) != 1 {
		return false
	}
	inner, ok := sel.X.(*ast.CallExpr)
	if !ok || len(inner.Args) != 1 {
		return false
	}
	innerSel, ok := inner.Fun.(*ast.SelectorExpr)
	if !ok || (innerSel.Sel.Name != "PathPrefix" && innerSel.Sel.Name != "Path") {
		return false
	}
	// The same call with the path first is what pprofMount and route read.
	flat := &ast.CallExpr{Fun: &ast.SelectorExpr{X: innerSel.X, Sel: ast.NewIdent("Handle")}, Args: []ast.Expr{inner.Args[0], c.Args[0]}}
	if r.pprofMount(flat, flat.Fun.(*ast.SelectorExpr)) {
		return true
	}
	if innerSel.Sel.Name == "Path" {
		if rt, ok := r.route(flat); ok {
			r.f.routes = append(r.f.routes, rt)
		}
	}
	return true
}

// routeMethods are the registration calls whose first argument is a path
// (or, for Handle and HandleFunc on Go 1.22's ServeMux, "METHOD /path").
var routeMethods = map[string]string{
	"Handle": "", "HandleFunc": "", "HandlerFunc": "", "Any": "",
	"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD",
	"GET": "GET", "POST": "POST", "PUT": "PUT", "DELETE": "DELETE", "PATCH": "PATCH", "HEAD": "HEAD",
}

func (r *fileReader) route(c *ast.CallExpr) (route, bool) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || len(c.Args) < 2 {
		return route{}, false
	}
	method, known := routeMethods[sel.Sel.Name]
	if !known {
		return route{}, false
	}
	pattern := pathArgument(c.Args[0])
	if pattern == "" {
		return route{}, false
	}
	if m, rest, ok := strings.Cut(pattern, " "); ok && method == "" && m == strings.ToUpper(m) {
		method, pattern = m, strings.TrimSpace(rest)
	}
	p := routePath(pattern)
	if p == "" {
		return route{}, false
	}
	handler, makers := handlerOf(c.Args[len(c.Args)-1])
	return route{at: r.pos(c.Pos()), method: method, path: p, receiver: exprName(sel.X), handler: handler, makers: makers}, true
}

// queryGetters are the calls that read one query parameter by name:
// r.URL.Query().Get("q") (Get on a Query() call), r.FormValue("q"), gin's
// c.Query and c.DefaultQuery, echo's c.QueryParam.
var queryGetters = map[string]bool{"FormValue": true, "Query": true, "DefaultQuery": true, "QueryParam": true}

// queryParameters records the query parameters a function reads.
func (r *fileReader) queryParameters(fn *ast.FuncDecl) {
	seen := map[string]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		reads := queryGetters[sel.Sel.Name]
		if inner, ok := sel.X.(*ast.CallExpr); ok && sel.Sel.Name == "Get" {
			if innerSel, ok := inner.Fun.(*ast.SelectorExpr); ok && innerSel.Sel.Name == "Query" {
				reads = true
			}
		}
		if name := stringLit(c.Args[0]); reads && name != "" && !seen[name] && url.QueryEscape(name) == name {
			seen[name] = true
			r.f.queryParams[fn.Name.Name] = append(r.f.queryParams[fn.Name.Name], name)
		}
		return true
	})
}

// pathArgument is the literal path of a route's first argument: a string
// literal, or the one literal given to a helper that prefixes it, like
// podinfo's s.prefixedPath("/healthz") (with its prefix left at the
// default, the path is the literal).
func pathArgument(e ast.Expr) string {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		return stringLit(c.Args[0])
	}
	return stringLit(e)
}

// routePath is the path of a route pattern: Go 1.22's "/{$}" is "/"; a
// pattern with a host, without a leading slash or with white space (no
// request can have it) is not a path.
func routePath(pattern string) string {
	if !strings.HasPrefix(pattern, "/") || strings.IndexFunc(pattern, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return ""
	}
	return strings.TrimSuffix(pattern, "{$}")
}
