package initconfig

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// keyName is the field a composite literal's key names.
func keyName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && name != "" && id.Name == name
}

// exprName is the last name of x, x.y, *x or &x.y: what a value is called
// wherever it is stored.
func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.StarExpr:
		return exprName(x.X)
	case *ast.UnaryExpr:
		return exprName(x.X)
	case *ast.ParenExpr:
		return exprName(x.X)
	}
	return ""
}

// identifiers are the names an expression refers to, without the names of
// imported packages.
func identifiers(e ast.Expr, imports map[string]bool) []string {
	var names []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] {
				return false
			}
			names = append(names, x.Sel.Name)
			return false
		case *ast.Ident:
			if !imports[x.Name] && x.Name != "nil" {
				names = append(names, x.Name)
			}
		}
		return true
	})
	return names
}

func stringLit(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return ""
	}
	return s
}

// importName is the name a package is imported as when the import does not
// rename it: the last element of its path, skipping a major version.
func importName(p string) string {
	base := p[strings.LastIndex(p, "/")+1:]
	// github.com/go-chi/chi/v5 is imported as chi.
	if len(base) >= 2 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		rest := strings.TrimSuffix(p, "/"+base)
		base = rest[strings.LastIndex(rest, "/")+1:]
	}
	return base
}
