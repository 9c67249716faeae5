package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Place is a function a patch changed, with the lines it added there, in
// the head tree: what a diagnosis should name.
type Place struct {
	// Function is the name a profile gives the function (import path,
	// receiver, method), closures included under it.
	Function string  `json:"function"`
	File     string  `json:"file"` // the file's path in the module
	Lines    []int64 `json:"lines"`
}

// hunkHeader is a unified diff hunk's "@@ -a,b +c,d @@" header.
var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// addedLines reads a patch: per file of the head tree (b/ paths), the
// numbers of the lines it added.
func addedLines(patch string) (map[string][]int64, error) {
	f, err := os.Open(patch)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	added := map[string][]int64{}
	var file string
	var line int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(text, "+++ "), "b/")
		case strings.HasPrefix(text, "--- "), strings.HasPrefix(text, "diff "), strings.HasPrefix(text, "index "):
		case hunkHeader.MatchString(text):
			n, _ := strconv.ParseInt(hunkHeader.FindStringSubmatch(text)[1], 10, 64)
			line = n
		case file == "" || file == "/dev/null":
		case strings.HasPrefix(text, "+"):
			added[file] = append(added[file], line)
			line++
		case strings.HasPrefix(text, "-"):
		default:
			line++
		}
	}
	return added, sc.Err()
}

// Planted finds, in the patched head tree, the functions enclosing the
// lines the patch added (Go files only).
func Planted(patch, tree string) ([]Place, error) {
	added, err := addedLines(patch)
	if err != nil {
		return nil, err
	}
	module, err := modulePath(tree)
	if err != nil {
		return nil, err
	}
	var places []Place
	for file, lines := range added {
		if !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		parsed, err := parser.ParseFile(fset, filepath.Join(tree, file), nil, 0)
		if err != nil {
			return nil, err
		}
		pkg := path.Join(module, path.Dir(file))
		if parsed.Name.Name == "main" {
			pkg = "main"
		}
		byFunction := map[string]*Place{}
		for _, decl := range parsed.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			from, to := int64(fset.Position(fn.Pos()).Line), int64(fset.Position(fn.End()).Line)
			name := pkg + "." + receiver(fn) + fn.Name.Name
			for _, l := range lines {
				if l >= from && l <= to {
					p := byFunction[name]
					if p == nil {
						p = &Place{Function: name, File: file}
						byFunction[name] = p
					}
					p.Lines = append(p.Lines, l)
				}
			}
		}
		for _, p := range byFunction {
			places = append(places, *p)
		}
	}
	return places, nil
}

// receiver is "(*T)." or "T." for a method ("(*T[...])." when generic),
// "" for a function, as profiles name them.
func receiver(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	pointer := false
	if star, ok := t.(*ast.StarExpr); ok {
		pointer, t = true, star.X
	}
	generic := ""
	switch g := t.(type) {
	case *ast.IndexExpr:
		t, generic = g.X, "[...]"
	case *ast.IndexListExpr:
		t, generic = g.X, "[...]"
	}
	name := fmt.Sprint(t) + generic
	if pointer {
		return "(*" + name + ")."
	}
	return name + "."
}

func modulePath(tree string) (string, error) {
	data, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod has no module line", tree)
}
