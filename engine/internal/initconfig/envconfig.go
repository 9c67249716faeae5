package initconfig

import (
	"go/ast"
	"reflect"
	"regexp"
	"strings"
)

// kelseyhightower/envconfig names a variable for every field of the
// struct given to envconfig.Process(prefix, &spec), without a tag on the
// field: PREFIX_FIELD, and PREFIX_PARENT_FIELD for a field of a nested
// struct (inbucket's Web.Addr is $INBUCKET_WEB_ADDR). The names are
// derived here as the library derives them (its gatherInfo, v1.4.0), so
// that a listener's address found as cfg.Web.Addr leads to its variable.

// envconfigPath is the library's import path.
const envconfigPath = "github.com/kelseyhightower/envconfig"

// envconfigCall is one envconfig.Process(prefix, spec) or MustProcess.
type envconfigCall struct {
	at     position
	prefix ast.Expr
	spec   ast.Expr
}

// envListenDefault is a field envconfig fills that holds an address to
// listen on, with its default (default:"0.0.0.0:2500").
type envListenDefault struct {
	name  string // the variable
	value string // the default address
	at    position
}

// The library's own expressions for split_words:"true".
var (
	envconfigWords    = regexp.MustCompile("([^A-Z]+|[A-Z]+[^A-Z]+|[A-Z]+)")
	envconfigAcronyms = regexp.MustCompile("([A-Z]+)([A-Z][^A-Z]+)")
)

// envconfigCallOf recognizes envconfig.Process(prefix, spec) and
// envconfig.MustProcess in a file that imports the library as pkg.
func envconfigCallOf(c *ast.CallExpr, pkg string) (prefix, spec ast.Expr, ok bool) {
	sel, isSel := c.Fun.(*ast.SelectorExpr)
	if pkg == "" || !isSel || !isIdent(sel.X, pkg) || len(c.Args) != 2 {
		return nil, nil, false
	}
	if sel.Sel.Name != "Process" && sel.Sel.Name != "MustProcess" {
		return nil, nil, false
	}
	return c.Args[0], c.Args[1], true
}

// typeNameOf is the struct type a value is made from: &Root{}, Root{} or
// new(Root); "" for anything else.
func typeNameOf(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.UnaryExpr:
		return typeNameOf(x.X)
	case *ast.CompositeLit:
		return exprName(x.Type)
	case *ast.CallExpr:
		if isIdent(x.Fun, "new") && len(x.Args) == 1 {
			return exprName(x.Args[0])
		}
	}
	return ""
}

// deriveEnvconfigNames binds, once every file is read, the fields of each
// struct given to envconfig to their variables: a field of a nested
// struct under "Parent.Field" (refsOf gives a selector's last two names
// that way), one of the struct itself under its own name. Variables the
// service cannot start without (required:"true" with no default) are
// recorded as read; fields that hold an address to listen on, with a
// default, as envListens.
func (f *facts) deriveEnvconfigNames() {
	for _, call := range f.envconfigCalls {
		typeName := typeNameOf(call.spec)
		if typeName == "" {
			typeName = f.varTypes[exprName(call.spec)]
		}
		if st := f.structs[typeName]; st != nil {
			f.envconfigFields(st, strings.ToUpper(f.constString(call.prefix)), "", call.at, 0)
		}
	}
}

// envconfigFields walks one struct as envconfig does.
func (f *facts) envconfigFields(st *ast.StructType, prefix, parent string, at position, depth int) {
	if depth > 8 {
		return // a struct that contains itself through pointers
	}
	for _, field := range st.Fields.List {
		tag := fieldTag(field)
		if tag.Get("ignored") == "true" {
			continue
		}
		inner := f.structs[structTypeName(field.Type)]
		if len(field.Names) == 0 { // embedded: its fields keep the prefix
			if inner != nil {
				f.envconfigFields(inner, prefix, parent, at, depth+1)
			}
			continue
		}
		for _, name := range field.Names {
			if !name.IsExported() {
				continue
			}
			key := envconfigKey(name.Name, tag, prefix)
			if inner != nil {
				f.envconfigFields(inner, key, name.Name, at, depth+1)
				continue
			}
			bound := name.Name
			if parent != "" {
				bound = parent + "." + name.Name
			}
			f.values.add(bound, refs{sources: []source{{kind: fromEnv, name: key}}})
			def, hasDefault := tag.Lookup("default")
			if tag.Get("required") == "true" && !hasDefault {
				if _, seen := f.envReads[key]; !seen {
					f.envReads[key] = at
				}
			}
			if roleOf(name.Name) == roleAddr && looksLikeAddress(def) {
				f.envListens = append(f.envListens, envListenDefault{name: key, value: def, at: at})
			}
		}
	}
}

// envconfigKey is a field's variable: its envconfig tag or its name
// (split into words with split_words), after the prefix, upper-case.
func envconfigKey(field string, tag reflect.StructTag, prefix string) string {
	key := field
	if tag.Get("split_words") == "true" {
		var words []string
		for _, w := range envconfigWords.FindAllStringSubmatch(field, -1) {
			if m := envconfigAcronyms.FindStringSubmatch(w[0]); len(m) == 3 {
				words = append(words, m[1], m[2])
			} else {
				words = append(words, w[0])
			}
		}
		key = strings.Join(words, "_")
	}
	if alt := tag.Get("envconfig"); alt != "" {
		key = alt
	}
	if prefix != "" {
		key = prefix + "_" + key
	}
	return strings.ToUpper(key)
}

// structTypeName is the name of a field's type when it is a struct type
// of the module, through one pointer: Web or *Web.
func structTypeName(t ast.Expr) string {
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// constString is a prefix's text: a string literal, or a constant or
// variable assigned one ("" when neither).
func (f *facts) constString(e ast.Expr) string {
	if s := stringLit(e); s != "" {
		return s
	}
	for _, r := range f.values[exprName(e)] {
		if r.whole != "" {
			return r.whole
		}
	}
	return ""
}
