package initconfig

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
)

// position is where something was found, for messages: file:line
// relative to the module root.
type position struct {
	file string
	line int
}

func (p position) String() string { return fmt.Sprintf("%s:%d", p.file, p.line) }

// listener is one place the service starts serving HTTP.
type listener struct {
	at   position
	kind string // how it was recognized, like "http.ListenAndServe"
	// addr is what the address expression is made of; addrKnown is false
	// when the syntax does not show the address at all.
	addr      refs
	addrKnown bool
	// defaultMux: the handler is nil or http.DefaultServeMux, where a blank
	// import of net/http/pprof registers its handlers.
	defaultMux   bool
	handlerNames []string // identifiers in the handler expression
	background   bool     // started in a go statement
	portFromEnv  string   // a framework default: gin's Run() reads $PORT
}

// route is one handler registration with a literal path.
type route struct {
	at       position
	method   string // empty: any method
	path     string
	receiver string   // the router's variable, when it is one
	handler  string   // the handler function's name, when it is one
	makers   []string // the functions called to make the handler (unfit.go)
}

// pprofMount is net/http/pprof served on a router explicitly.
type pprofMount struct {
	at       position
	prefix   string
	receiver string
	// when is the condition of the if statement the mount is in, when
	// it is a plain value (if cfg.Web.PProf {...}): pprof is served only
	// when that flag or variable is set.
	when *refs
}

// facts is everything read from a command's packages.
type facts struct {
	listeners    []listener
	routes       []route
	mounts       []pprofMount
	importsPprof bool
	pprofImport  position
	values       valueGraph
	// envReads are the environment variables the service reads, where
	// each is first read: perfgate starts it with almost none set.
	envReads map[string]position
	// definedFlags and keyTags bind viper-style configuration: a field
	// tagged mapstructure:"port" holds the flag port when one is defined.
	definedFlags map[string]bool
	keyTags      [][2]string
	// queryParams are the query parameters each function reads, by the
	// function's name: a route's handler that reads ?q= gets q in the load.
	queryParams map[string][]string
	// structs are the module's struct types and varTypes the struct type
	// of each variable made from one (c := &Root{}), by name: envconfig
	// derives variables' names from the fields of the struct it is given
	// (envconfig.go).
	structs        map[string]*ast.StructType
	varTypes       map[string]string
	envconfigCalls []envconfigCall
	// envListens are the addresses to listen on that envconfig fills
	// with a default: other listeners of the service, which base and head
	// cannot share.
	envListens []envListenDefault
	// unfitFuncs are the functions that take a request's connection over
	// or read a file, and why, and callees the functions each calls by
	// name (unfit.go).
	unfitFuncs map[string]string
	callees    map[string][]string
}

func newFacts() *facts {
	return &facts{
		values: valueGraph{}, envReads: map[string]position{}, definedFlags: map[string]bool{}, queryParams: map[string][]string{},
		structs: map[string]*ast.StructType{}, varTypes: map[string]string{},
		unfitFuncs: map[string]string{}, callees: map[string][]string{},
	}
}

// bindFlagTags adds, once every file is read, the fields tagged with the
// name of a defined flag as assignments from that flag.
func (f *facts) bindFlagTags() {
	for _, t := range f.keyTags {
		if f.definedFlags[t[1]] {
			f.values.add(t[0], refs{sources: []source{{kind: fromFlag, name: t[1]}}})
		}
	}
}

// noteEnvRead records a call that reads an environment variable.
func (r *fileReader) noteEnvRead(c *ast.CallExpr) {
	if s, ok := envRead(c); ok {
		if _, seen := r.f.envReads[s.name]; !seen {
			r.f.envReads[s.name] = r.pos(c.Pos())
		}
	}
}

// fileReader walks one file, knowing its import names.
type fileReader struct {
	f       *facts
	file    *sourceFile
	httpPkg string          // the name net/http is imported as, "" if not
	netPkg  string          // net
	pprof   string          // net/http/pprof
	imports map[string]bool // import names of the file, never variables
	router  string          // a framework whose Run/Start/Listen serve HTTP
	envconf string          // kelseyhightower/envconfig
	gos     []ast.Node      // go statements, for background listeners
	ifs     []*ast.IfStmt   // the if statements of the function being read
}

func (f *facts) read(file *sourceFile) {
	r := &fileReader{f: f, file: file, imports: map[string]bool{}}
	for _, imp := range file.ast.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := importName(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		r.imports[name] = true
		switch {
		case p == "net/http":
			r.httpPkg = name
		case p == "net":
			r.netPkg = name
		case p == "net/http/pprof":
			r.pprof = name
			if !f.importsPprof {
				f.importsPprof = true
				f.pprofImport = r.pos(imp.Pos())
			}
		case strings.HasPrefix(p, "github.com/gin-gonic/gin"):
			r.router = "gin"
		case strings.HasPrefix(p, "github.com/labstack/echo"):
			r.router = "echo"
		case strings.HasPrefix(p, "github.com/gofiber/fiber"):
			r.router = "fiber"
		case p == "github.com/gin-contrib/pprof":
			r.pprof = name
		case p == envconfigPath:
			r.envconf = name
		}
	}
	ast.Inspect(file.ast, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			r.gos = append(r.gos, g)
		}
		return true
	})
	for _, decl := range file.ast.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				r.function(d.Body)
				r.queryParameters(d)
				r.noteUnfitCalls(d)
			}
		case *ast.GenDecl:
			r.genDecl(d)
		}
	}
}

func (r *fileReader) pos(p token.Pos) position {
	return position{file: r.file.rel, line: r.file.fset.Position(p).Line}
}

func (r *fileReader) inGoStatement(n ast.Node) bool {
	for _, g := range r.gos {
		if n.Pos() >= g.Pos() && n.End() <= g.End() {
			return true
		}
	}
	return false
}

// function reads one function body: listeners are paired with the
// net.Listen calls of the same function, which is where a server without
// an Addr gets its address.
func (r *fileReader) function(body *ast.BlockStmt) {
	var netListens []refs
	var servers []int // indexes into f.listeners of servers without Addr
	handled := map[*ast.CallExpr]bool{}
	r.ifs = nil
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt:
			r.ifs = append(r.ifs, x)
		case *ast.AssignStmt:
			r.assign(x)
		case *ast.ValueSpec:
			r.varTypes(x)
		case *ast.CompositeLit:
			if r.isHTTPServer(x.Type) {
				if idx, hasAddr := r.server(x); !hasAddr {
					servers = append(servers, idx)
				}
			}
			r.structFields(x)
		case *ast.CallExpr:
			if handled[x] {
				return true
			}
			if r.isNetListen(x) {
				netListens = append(netListens, r.f.values.refsOf(x.Args[1], r.imports))
			}
			r.call(x, handled)
		}
		return true
	})
	for _, idx := range servers {
		if len(netListens) > 0 {
			r.f.listeners[idx].addr = netListens[0]
			r.f.listeners[idx].addrKnown = true
		}
	}
}

// condition is the condition of the innermost if statement whose body
// holds n, when it is a plain value (a field or variable, not a
// comparison or a negation): what must be true for n to run.
func (r *fileReader) condition(n ast.Node) *refs {
	var inner *ast.IfStmt
	for _, s := range r.ifs {
		if s.Body.Pos() <= n.Pos() && n.End() <= s.Body.End() && (inner == nil || s.Body.Pos() > inner.Body.Pos()) {
			inner = s
		}
	}
	if inner == nil {
		return nil
	}
	switch inner.Cond.(type) {
	case *ast.SelectorExpr, *ast.Ident:
		c := r.f.values.refsOf(inner.Cond, r.imports)
		return &c
	}
	return nil
}

func (r *fileReader) isHTTPServer(t ast.Expr) bool {
	sel, ok := t.(*ast.SelectorExpr)
	return ok && r.httpPkg != "" && isIdent(sel.X, r.httpPkg) && sel.Sel.Name == "Server"
}

func (r *fileReader) isNetListen(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && r.netPkg != "" && isIdent(sel.X, r.netPkg) && sel.Sel.Name == "Listen" && len(c.Args) == 2
}

// server records an http.Server literal as a listener and says whether it
// names its Addr.
func (r *fileReader) server(lit *ast.CompositeLit) (int, bool) {
	l := listener{at: r.pos(lit.Pos()), kind: "http.Server", defaultMux: true, background: r.inGoStatement(lit)}
	hasAddr := false
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch keyName(kv.Key) {
		case "Addr":
			l.addr, l.addrKnown, hasAddr = r.f.values.refsOf(kv.Value, r.imports), true, true
		case "Handler":
			l.defaultMux = r.isDefaultMux(kv.Value)
			l.handlerNames = identifiers(kv.Value, r.imports)
		}
	}
	r.f.listeners = append(r.f.listeners, l)
	return len(r.f.listeners) - 1, hasAddr
}

// isDefaultMux reports whether a handler expression is nil or serves
// http.DefaultServeMux, also wrapped in middleware
// (handlers.LoggingHandler(os.Stdout, http.DefaultServeMux)).
func (r *fileReader) isDefaultMux(e ast.Expr) bool {
	if isIdent(e, "nil") {
		return true
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && isIdent(sel.X, r.httpPkg) && sel.Sel.Name == "DefaultServeMux" {
			found = true
		}
		return !found
	})
	return found
}

// call recognizes listeners, routes and pprof mounts among calls.
func (r *fileReader) call(c *ast.CallExpr, handled map[*ast.CallExpr]bool) {
	r.noteEnvRead(c)
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	name := sel.Sel.Name
	if r.httpPkg != "" && isIdent(sel.X, r.httpPkg) &&
		((name == "ListenAndServe" && len(c.Args) == 2) || (name == "ListenAndServeTLS" && len(c.Args) == 4)) {
		handler := c.Args[len(c.Args)-1]
		r.f.listeners = append(r.f.listeners, listener{
			at: r.pos(c.Pos()), kind: "http." + name, addr: r.f.values.refsOf(c.Args[0], r.imports), addrKnown: true,
			defaultMux: r.isDefaultMux(handler), handlerNames: identifiers(handler, r.imports), background: r.inGoStatement(c),
		})
		return
	}
	if name, ok := r.f.values.flagVar(c); ok {
		r.f.definedFlags[name] = true
		return
	}
	if prefix, spec, ok := envconfigCallOf(c, r.envconf); ok {
		r.f.envconfigCalls = append(r.f.envconfigCalls, envconfigCall{at: r.pos(c.Pos()), prefix: prefix, spec: spec})
		return
	}
	if r.frameworkListener(c, sel) {
		return
	}
	if r.pprofMount(c, sel) {
		return
	}
	if r.gorillaPath(c, sel) {
		return
	}
	// gorilla/mux: r.HandleFunc("/x", h).Methods("GET"), possibly with
	// matchers between (.HeadersRegexp(...)).
	if name == "Methods" && len(c.Args) > 0 {
		for x, depth := sel.X, 0; depth < 4; depth++ {
			inner, ok := x.(*ast.CallExpr)
			if !ok {
				break
			}
			if rt, ok := r.route(inner); ok {
				handled[inner] = true
				rt.method = strings.ToUpper(stringLit(c.Args[0]))
				r.f.routes = append(r.f.routes, rt)
				break
			}
			innerSel, ok := inner.Fun.(*ast.SelectorExpr)
			if !ok {
				break
			}
			x = innerSel.X
		}
		return
	}
	if rt, ok := r.route(c); ok {
		r.f.routes = append(r.f.routes, rt)
	}
}

// frameworkListener recognizes gin's Run, echo's Start and fiber's Listen
// in files that import them.
func (r *fileReader) frameworkListener(c *ast.CallExpr, sel *ast.SelectorExpr) bool {
	method := map[string]string{"gin": "Run", "echo": "Start", "fiber": "Listen"}[r.router]
	if method == "" || sel.Sel.Name != method || len(c.Args) > 1 || r.imports[exprName(sel.X)] {
		return false
	}
	l := listener{at: r.pos(c.Pos()), kind: r.router + " " + method, handlerNames: []string{exprName(sel.X)}, background: r.inGoStatement(c)}
	if len(c.Args) == 1 {
		l.addr, l.addrKnown = r.f.values.refsOf(c.Args[0], r.imports), true
	} else if r.router == "gin" {
		l.portFromEnv = "PORT" // gin's Run() without an address listens on :$PORT
	} else {
		return false
	}
	r.f.listeners = append(r.f.listeners, l)
	return true
}

// genDecl reads package-level variables and constants (a default address
// is often a constant) and struct tags that bind fields to environment
// variables.
func (r *fileReader) genDecl(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.ValueSpec:
			r.varTypes(s)
			for i, name := range s.Names {
				if i < len(s.Values) {
					r.f.values.add(name.Name, r.f.values.refsOf(s.Values[i], r.imports))
				}
			}
			for _, v := range s.Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok {
						r.noteEnvRead(c)
						if name, ok := r.f.values.flagVar(c); ok {
							r.f.definedFlags[name] = true
						}
					}
					return true
				})
			}
		case *ast.TypeSpec:
			if st, ok := s.Type.(*ast.StructType); ok {
				r.f.structs[s.Name.Name] = st
				r.f.keyTags = append(r.f.keyTags, configKeyTags(st)...)
				for _, name := range r.f.values.envTags(st) {
					if _, seen := r.f.envReads[name]; !seen {
						r.f.envReads[name] = r.pos(s.Pos())
					}
				}
			}
		}
	}
}

func (r *fileReader) assign(a *ast.AssignStmt) {
	for i, lhs := range a.Lhs {
		name := exprName(lhs)
		if name == "" || name == "_" || name == "err" {
			continue
		}
		rhs := a.Rhs[0]
		if len(a.Rhs) == len(a.Lhs) {
			rhs = a.Rhs[i]
		}
		r.f.values.add(name, r.f.values.refsOf(rhs, r.imports))
		if t := typeNameOf(rhs); t != "" {
			r.f.varTypes[name] = t
		}
	}
}

// varTypes records the struct type of variables declared with one: var
// cfg Config.
func (r *fileReader) varTypes(s *ast.ValueSpec) {
	if t := structTypeName(s.Type); t != "" {
		for _, name := range s.Names {
			r.f.varTypes[name.Name] = t
		}
	}
}

// structFields reads composite literals as assignments to their fields:
// Config{Addr: *addr} makes Addr refer to addr.
func (r *fileReader) structFields(lit *ast.CompositeLit) {
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if key := keyName(kv.Key); key != "" {
				r.f.values.add(key, r.f.values.refsOf(kv.Value, r.imports))
			}
		}
	}
}
