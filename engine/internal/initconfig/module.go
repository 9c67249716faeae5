// Package initconfig is `perfgate init`: it reads a Go module's source
// (never builds or runs it), finds its HTTP services, and writes the
// perfgate.yml and the pull-request workflow that gate one of them, with
// every guess explained in a comment and everything it could not infer
// said as a change to make.
//
// It parses files with go/parser and reads them with go/ast, without type
// information: `go list` or go/packages would need the module's
// dependencies downloaded (init runs before anything is set up, and on
// machines without network), and the facts it looks for (a call to
// http.ListenAndServe, a flag named "addr", a route "/healthz") are
// visible in the syntax. The price is that names are matched by spelling,
// not by type; every such guess is written down as one.
package initconfig

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// maxFiles bounds how many Go files one module may hold; past it the
// module is not a service this command was made for (a monorepo root), and
// --dir should point at the service's own module.
const maxFiles = 20000

// goPackage is one directory's non-test Go files.
type goPackage struct {
	dir        string // relative to the module root, "." for the root
	importPath string
	name       string
	hasMain    bool // package main with a func main
	files      []*sourceFile
	imports    map[string]bool // import paths of all its files
}

// sourceFile is one parsed file and where it is.
type sourceFile struct {
	rel  string // relative to the module root, slash-separated
	fset *token.FileSet
	ast  *ast.File
}

// module is a Go module read from its directory.
type module struct {
	root     string
	path     string // the module path from go.mod
	packages map[string]*goPackage
}

// loadModule parses every non-test Go file of the module at root,
// skipping vendor/, testdata/, hidden directories and nested modules.
func loadModule(root string) (*module, error) {
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := &module{root: root, path: modPath, packages: map[string]*goPackage{}}
	fset := token.NewFileSet()
	count := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			name := d.Name()
			if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		count++
		if count > maxFiles {
			return fmt.Errorf("%s holds more than %d Go files: point --dir at the module of the service to gate", root, maxFiles)
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil // a file that does not parse cannot be built either; the rest still tells
		}
		if ignoredByBuildTag(f) {
			return nil
		}
		dir := path.Dir(rel)
		pkg := m.packages[dir]
		if pkg == nil {
			importPath := modPath
			if dir != "." {
				importPath = modPath + "/" + dir
			}
			pkg = &goPackage{dir: dir, importPath: importPath, name: f.Name.Name, imports: map[string]bool{}}
			m.packages[dir] = pkg
		}
		pkg.files = append(pkg.files, &sourceFile{rel: rel, fset: fset, ast: f})
		for _, imp := range f.Imports {
			pkg.imports[strings.Trim(imp.Path.Value, `"`)] = true
		}
		if f.Name.Name == "main" && declaresMain(f) {
			pkg.hasMain = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// modulePath reads the module line of a go.mod file.
func modulePath(goMod string) (string, error) {
	data, err := os.ReadFile(goMod)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no go.mod in %s: point --dir at the root of the Go module to gate (the directory holding its go.mod)", filepath.Dir(goMod))
	}
	if err != nil {
		return "", err
	}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`), nil
		}
	}
	return "", fmt.Errorf("%s has no module line: run `go mod init` there first", goMod)
}

// ignoredByBuildTag reports whether a file is kept out of ordinary builds
// by a //go:build ignore line (tools and generators live in such files).
func ignoredByBuildTag(f *ast.File) bool {
	for _, group := range f.Comments {
		if group.Pos() > f.Package {
			break
		}
		for _, c := range group.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, "ignore") {
				return true
			}
		}
	}
	return false
}

func declaresMain(f *ast.File) bool {
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" {
			return true
		}
	}
	return false
}

// mainPackages are the module's commands, in directory order.
func (m *module) mainPackages() []*goPackage {
	var mains []*goPackage
	for _, p := range m.packages {
		if p.hasMain {
			mains = append(mains, p)
		}
	}
	sort.Slice(mains, func(i, j int) bool { return mains[i].dir < mains[j].dir })
	return mains
}

// closure is the main package and every package of this module it
// imports, directly or not: a command's listener often lives in an
// internal package (go-httpbin's in httpbin/cmd).
func (m *module) closure(main *goPackage) []*goPackage {
	byImport := map[string]*goPackage{}
	for _, p := range m.packages {
		byImport[p.importPath] = p
	}
	seen := map[string]bool{main.importPath: true}
	order := []*goPackage{main}
	for i := 0; i < len(order); i++ {
		imports := make([]string, 0, len(order[i].imports))
		for imp := range order[i].imports {
			imports = append(imports, imp)
		}
		sort.Strings(imports)
		for _, imp := range imports {
			if p := byImport[imp]; p != nil && !seen[imp] && !p.hasMain {
				seen[imp] = true
				order = append(order, p)
			}
		}
	}
	return order
}

// packageArg is how perfgate.yml names a package: ./dir, or . for the
// module root.
func packageArg(dir string) string {
	if dir == "." {
		return "."
	}
	return "./" + dir
}
