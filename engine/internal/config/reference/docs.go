package reference

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// typeDoc is the documentation of one struct type of package report.
type typeDoc struct {
	doc    string
	fields map[string]string
}

// readDocs reads the doc comments of the struct types in dir's Go files
// (tests excluded), each turned into text by format: perfgate.yml's
// reference and schema speak to the user of the file (userText),
// report.json's schema quotes the comment (firstParagraph).
func readDocs(dir string, format docFormat) (map[string]typeDoc, error) {
	fset := token.NewFileSet()
	docs := map[string]typeDoc{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reference: read package report's source: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+e.Name(), nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				group := ts.Doc
				if group == nil && len(gd.Specs) == 1 {
					group = gd.Doc
				}
				td := typeDoc{doc: format(ts.Name.Name, group, true), fields: map[string]string{}}
				for _, field := range st.Fields.List {
					group := field.Doc
					if group == nil {
						group = field.Comment
					}
					for _, name := range field.Names {
						td.fields[name.Name] = format(name.Name, group, false)
					}
				}
				docs[ts.Name.Name] = td
			}
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("reference: no struct types in %s: is it package report's source?", dir)
	}
	return docs, nil
}

// docFormat turns the doc comment of a type or field called name into the
// text a generated document shows.
type docFormat func(name string, group *ast.CommentGroup, isType bool) string

// firstParagraph is a doc comment's first paragraph on one line: later
// paragraphs are for readers of the Go code.
func firstParagraph(_ string, group *ast.CommentGroup, _ bool) string {
	if group == nil {
		return ""
	}
	para, _, _ := strings.Cut(group.Text(), "\n\n")
	return strings.Join(strings.Fields(para), " ")
}

// userText turns a Go doc comment about name into a sentence for the user
// of perfgate.yml: "Rate is the constant request rate" becomes "The
// constant request rate"; a type's "Service says how ..." becomes "This
// section says how ...".
func userText(name string, group *ast.CommentGroup, isType bool) string {
	text := firstParagraph(name, group, isType)
	if text == "" {
		return ""
	}
	for _, verb := range []string{" is ", " are "} {
		if rest, ok := strings.CutPrefix(text, name+verb); ok {
			return capitalize(rest)
		}
	}
	if rest, ok := strings.CutPrefix(text, name+" "); ok && isType {
		return "This section " + rest
	}
	return capitalize(text)
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
