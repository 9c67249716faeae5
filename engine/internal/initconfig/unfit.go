package initconfig

import "go/ast"

// A route is a poor first load when its handler takes the request's
// connection over (a websocket: it answers a plain GET with an error) or
// reads a file by a path (relative paths resolve in the private working
// directory perfgate starts the service in, where the file is not, and
// every request fails). The syntax shows both as calls, also a call or two
// away from the handler (inbucket's monitor handlers call serveMonitor,
// which upgrades; its favicon route's fileHandler opens the file).

// unfitCalls are those calls, by the name of the function or method
// called: gorilla's Upgrader.Upgrade, coder/websocket's Accept, Hijack;
// os.Open, os.ReadFile, ioutil.ReadFile and http.ServeFile.
var unfitCalls = map[string]string{
	"Upgrade": "takes the connection over", "Accept": "takes the connection over", "Hijack": "takes the connection over",
	"Open": "reads a file", "ReadFile": "reads a file", "ServeFile": "reads a file",
}

// noteUnfitCalls records which functions make one of those calls, and
// which functions each calls by name, for unfit().
func (r *fileReader) noteUnfitCalls(fn *ast.FuncDecl) {
	name := fn.Name.Name
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch f := c.Fun.(type) {
		case *ast.SelectorExpr:
			if why, ok := unfitCalls[f.Sel.Name]; ok && len(c.Args) >= 1 {
				r.f.unfitFuncs[name] = why
			}
		case *ast.Ident:
			r.f.callees[name] = append(r.f.callees[name], f.Name)
		case *ast.IndexExpr: // a generic function: serveMonitor[T](...)
			if id, ok := f.X.(*ast.Ident); ok {
				r.f.callees[name] = append(r.f.callees[name], id.Name)
			}
		}
		return true
	})
}

// unfit reports whether the function, or one it calls by name up to two
// calls deep, makes one of the unfit calls.
func (f *facts) unfit(fn string) bool {
	if fn == "" {
		return false
	}
	level := []string{fn}
	for depth := 0; depth < 3; depth++ {
		var next []string
		for _, g := range level {
			if f.unfitFuncs[g] != "" {
				return true
			}
			next = append(next, f.callees[g]...)
		}
		level = next
	}
	return false
}

// handlerOf reads a route's handler expression: the function it names,
// also through one-argument wrappers (MailboxListV1 in
// web.Handler(MailboxListV1)), and the functions called to make it
// (web.Handler; fileHandler in fileHandler(filepath.Join(dir, "x.png"))).
func handlerOf(e ast.Expr) (name string, makers []string) {
	for depth := 0; depth < 4; depth++ {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			return exprName(e), makers
		}
		makers = append(makers, exprName(c.Fun))
		if len(c.Args) != 1 {
			break
		}
		e = c.Args[0]
	}
	return "", makers
}

// unfitRoute reports whether a route's handler, or a function that made
// it, makes an unfit call.
func (f *facts) unfitRoute(r route) bool {
	if f.unfit(r.handler) {
		return true
	}
	for _, m := range r.makers {
		if f.unfit(m) {
			return true
		}
	}
	return false
}
