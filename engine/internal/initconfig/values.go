package initconfig

import (
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// sourceKind is where a value the service listens on comes from.
type sourceKind int

const (
	fromFlag sourceKind = iota
	fromEnv
)

// source is a command-line flag or an environment variable.
type source struct {
	kind sourceKind
	name string // the flag's name or the variable's
}

// refs is what an expression is made of: the names it reads, the flags
// and environment variables it reads directly, and its string literals.
type refs struct {
	names    []string
	sources  []source
	literals []literal
	// whole is set when the expression is one string literal: an address
	// written in the call itself, like http.ListenAndServe(":8080", mux).
	whole string
}

type literal struct{ value string }

// valueGraph maps each name (a variable or a struct field, by its last
// name, across all files) to what is assigned to it. Matching by name
// without scopes is coarse, but a service's address travels through few
// names (addr := flag.String("addr"...); srv.Addr = *addr), and the
// result is reported as a guess.
type valueGraph map[string][]refs

func (g valueGraph) add(name string, r refs) {
	if len(r.names)+len(r.sources)+len(r.literals) > 0 {
		g[name] = append(g[name], r)
	}
}

// resolve follows names to the flags and environment variables they come
// from.
func (g valueGraph) resolve(start refs) []source {
	sources := append([]source(nil), start.sources...)
	seen := map[string]bool{}
	queue := append([]string(nil), start.names...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, r := range g[name] {
			sources = append(sources, r.sources...)
			queue = append(queue, r.names...)
		}
	}
	return dedupe(sources)
}

// resolvePrecisely is resolve of a selector's qualified names alone
// (Web.Addr) when they lead anywhere, and of every name otherwise: a field
// called Addr is read by more than one listener.
func (g valueGraph) resolvePrecisely(start refs) []source {
	qualified := refs{sources: start.sources}
	for _, n := range start.names {
		if strings.Contains(n, ".") {
			qualified.names = append(qualified.names, n)
		}
	}
	if s := g.resolve(qualified); len(s) > len(start.sources) {
		return s
	}
	return g.resolve(start)
}

func dedupe(sources []source) []source {
	seen := map[source]bool{}
	var out []source
	for _, s := range sources {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].kind < out[j].kind })
	return out
}

// refsOf reads an expression: flag and environment reads are sources,
// string literals are literals, other names are followed later.
func (g valueGraph) refsOf(e ast.Expr, imports map[string]bool) refs {
	var r refs
	r.whole = stringLit(e)
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if s, ok := flagDefinition(x); ok {
				r.sources = append(r.sources, s)
				return false
			}
			if s, ok := envRead(x); ok {
				r.sources = append(r.sources, s)
				return false
			}
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if v, err := strconv.Unquote(x.Value); err == nil {
					r.literals = append(r.literals, literal{value: v})
				}
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] {
				return false // strconv.Itoa, net.JoinHostPort: not values
			}
			// s.config.Port is Port: following config too would pull in
			// every field assigned anywhere to anything called config.
			// cfg.Web.Addr is also Web.Addr, the name envconfig's
			// variables are bound to (envconfig.go): inbucket's SMTP and
			// web listeners both read a field called Addr.
			r.names = append(r.names, x.Sel.Name)
			if inner, ok := x.X.(*ast.SelectorExpr); ok {
				r.names = append(r.names, inner.Sel.Name+"."+x.Sel.Name)
			}
			return false
		case *ast.Ident:
			if !imports[x.Name] {
				r.names = append(r.names, x.Name)
			}
		}
		return true
	})
	return r
}

// flagVar records a flag bound to a variable (flag.StringVar(&cfg.Addr,
// "addr", ...)), which is an assignment the syntax does not spell as one,
// and returns the name of the flag c defines, if it defines one.
func (g valueGraph) flagVar(c *ast.CallExpr) (string, bool) {
	s, ok := flagDefinition(c)
	if !ok {
		return "", false
	}
	sel := c.Fun.(*ast.SelectorExpr)
	if strings.HasSuffix(strings.TrimSuffix(sel.Sel.Name, "P"), "Var") {
		g.add(exprName(c.Args[0]), refs{sources: []source{s}})
	}
	return s.name, true
}

// flagFuncs are the flag (and pflag) functions that define a flag, with
// the index of the flag's name among their arguments.
var flagFuncs = map[string]int{
	"String": 0, "Int": 0, "Uint": 0, "Int64": 0, "Uint64": 0,
	"StringVar": 1, "IntVar": 1, "UintVar": 1, "Int64Var": 1, "Uint64Var": 1,
	"StringP": 0, "IntP": 0, "StringVarP": 1, "IntVarP": 1,
}

// flagDefinition recognizes flag.String("addr", ":8080", "usage") and its
// kin on any receiver (a FlagSet, pflag, cobra's Flags()): a name, a
// default and a usage string.
func flagDefinition(c *ast.CallExpr) (source, bool) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return source{}, false
	}
	idx, ok := flagFuncs[sel.Sel.Name]
	if !ok || len(c.Args) < idx+3 {
		return source{}, false
	}
	name := stringLit(c.Args[idx])
	if name == "" || stringLit(c.Args[len(c.Args)-1]) == "" && !isStringish(c.Args[len(c.Args)-1]) {
		return source{}, false
	}
	return source{kind: fromFlag, name: name}, true
}

// isStringish accepts a usage argument that is not a plain literal (a
// constant or a concatenation).
func isStringish(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Ident, *ast.BinaryExpr, *ast.SelectorExpr, *ast.CallExpr:
		return true
	}
	return false
}

// envRead recognizes os.Getenv("PORT"), os.LookupEnv and helpers whose
// name says env (getEnv("PORT", "8080"), envOr(...)) called with an
// upper-case variable name.
func envRead(c *ast.CallExpr) (source, bool) {
	if len(c.Args) == 0 {
		return source{}, false
	}
	name := stringLit(c.Args[0])
	if !isEnvName(name) {
		return source{}, false
	}
	fn := exprName(c.Fun)
	if !strings.Contains(strings.ToLower(fn), "env") {
		return source{}, false
	}
	return source{kind: fromEnv, name: name}, true
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// envTags reads struct fields bound to environment variables by tags
// (envconfig, caarlos0/env): Port int `env:"PORT"`, and returns the
// variables' names.
func (g valueGraph) envTags(st *ast.StructType) []string {
	var names []string
	for _, field := range st.Fields.List {
		if field.Tag == nil || len(field.Names) == 0 {
			continue
		}
		tag := fieldTag(field)
		for _, key := range []string{"env", "envconfig"} {
			name, _, _ := strings.Cut(tag.Get(key), ",")
			if isEnvName(name) {
				g.add(field.Names[0].Name, refs{sources: []source{{kind: fromEnv, name: name}}})
				names = append(names, name)
			}
		}
	}
	return names
}

// configKeyTags reads struct fields bound to configuration keys by
// mapstructure tags (viper: Port string `mapstructure:"port"`), as
// [field, key] pairs. With viper.BindPFlags the key is a flag's name;
// facts.bindFlagTags keeps only keys that are defined flags.
func configKeyTags(st *ast.StructType) [][2]string {
	var out [][2]string
	for _, field := range st.Fields.List {
		if field.Tag == nil || len(field.Names) == 0 {
			continue
		}
		if key, _, _ := strings.Cut(fieldTag(field).Get("mapstructure"), ","); key != "" && key != "-" {
			out = append(out, [2]string{field.Names[0].Name, key})
		}
	}
	return out
}

// fieldTag is a struct field's tag, empty when it has none or it is not a
// valid string literal.
func fieldTag(field *ast.Field) reflect.StructTag {
	if field.Tag == nil {
		return ""
	}
	tag, err := strconv.Unquote(field.Tag.Value)
	if err != nil {
		return ""
	}
	return reflect.StructTag(tag)
}
