// Package reference generates docs/config.md, the reference of
// perfgate.yml, from the code that reads the file, so the two cannot
// drift: the keys and their order come from config.Keys, each key's type
// and JSON name from report.Config by reflection, its default from
// config.Default, the allowed values from config's lists (config.Targets,
// ...), and what it means from the doc comments of report's config types,
// read from their source. A field added to report.Config (and to
// config.Keys, which parsing needs anyway) with a doc comment appears in
// the reference without further work; a field without one, or a key
// without a field, stops the generator with a message saying what to add.
// TestReferenceIsDocsConfigMd fails until docs/config.md is regenerated.
//
// The same walk writes docs/schema/perfgate.schema.json (schema.go), the
// JSON Schema editors check perfgate.yml with, and reflection over
// report.Report writes docs/schema/report.schema.json (report_schema.go);
// TestSchemasAreDocsSchema fails until they are regenerated, by the same
// command.
package reference

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Command is how docs/config.md is regenerated; the file's first line says so.
const Command = "cd engine && go test ./internal/config/reference -update"

// Minimal is the smallest useful perfgate.yml: the one key without a
// default, and the address the service is told to listen on. The test
// checks that it parses.
const Minimal = `version: 1
service:
  package: ./cmd/server
  args: ["-addr", "{addr}"]
`

// required are the keys config.Default leaves for the user, each with why.
// The generator checks that these are exactly the fields config.Default
// fails validation on, so the list cannot outlive a change of the rules.
var required = map[string]string{
	"service.package": "required",
	"service.args":    "`[]`: with `service.env`, must use `{addr}` or `{port}`",
}

// allowed lists the values of keys that take one of a fixed set.
var allowed = map[string]struct {
	how    string
	values []string
}{
	"target":                 {"One of", config.Targets},
	"experiment":             {"One of", config.Experiments},
	"layout":                 {"One of", config.Layouts},
	"layout_pairing":         {"One of", config.LayoutPairings},
	"profiles":               {"Any of", config.Profiles},
	"load.requests[].method": {"One of", config.Methods},
}

// typeNames name the types of perfgate.yml's values; units links the unit
// types to the Units table.
var typeNames = map[reflect.Type]string{
	reflect.TypeFor[report.Duration]():   "[duration](#units)",
	reflect.TypeFor[report.CPU]():        "[CPU](#units)",
	reflect.TypeFor[report.Bytes]():      "[bytes](#units)",
	reflect.TypeFor[report.Fraction]():   "[percentage](#units)",
	reflect.TypeFor[string]():            "string",
	reflect.TypeFor[int]():               "integer",
	reflect.TypeFor[float64]():           "number",
	reflect.TypeFor[bool]():              "boolean",
	reflect.TypeFor[[]string]():          "list of strings",
	reflect.TypeFor[map[string]string](): "mapping of strings",
	reflect.TypeFor[[]report.Request]():  "list of [requests](#loadrequests)",
}

// row is one key of perfgate.yml: its cells in the reference, and the
// field, default and doc comment they were written from, which the schema
// reads.
type row struct {
	key, typ, def, meaning string
	field                  reflect.StructField
	value                  reflect.Value // the default
	doc                    string        // the doc comment alone, without allowed values
	mapping                bool          // a section of its own
}

// section is one mapping of perfgate.yml: the top level, service, ...
type section struct {
	key  string // "" for the top level
	doc  string
	rows []row
}

// Markdown is docs/config.md. reportDir is the source directory of package
// report, whose doc comments say what each key means.
func Markdown(reportDir string) ([]byte, error) {
	g, err := walkConfig(reportDir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	g.write(&b)
	return b.Bytes(), nil
}

// walkConfig reads every key of perfgate.yml, in the reference's order,
// into sections: what docs/config.md and perfgate.schema.json are both
// written from.
func walkConfig(reportDir string) (*generator, error) {
	docs, err := readDocs(reportDir, userText)
	if err != nil {
		return nil, err
	}
	if err := checkRequired(); err != nil {
		return nil, err
	}
	request, err := requestDefaults()
	if err != nil {
		return nil, err
	}
	g := &generator{docs: docs, elements: map[reflect.Type]reflect.Value{reflect.TypeFor[report.Request](): reflect.ValueOf(request)}}
	g.walk("", reflect.TypeFor[report.Config](), reflect.ValueOf(report.Config(*config.Default())))
	if len(g.errs) > 0 {
		return nil, errors.Join(g.errs...)
	}
	return g, nil
}

// requestDefaults is a request written as a mapping with only its path, as
// the parser fills it in.
func requestDefaults() (report.Request, error) {
	c, err := config.Parse("minimal", []byte(Minimal+"load:\n  requests:\n    - path: /\n"))
	if err != nil {
		return report.Request{}, fmt.Errorf("reference: the minimal perfgate.yml with one request does not parse: %w", err)
	}
	r := c.Load.Requests[0]
	r.Path = "" // the key the user gave: required
	return r, nil
}

// checkRequired compares required with what config.Default lacks.
func checkRequired() error {
	var fields []string
	for _, e := range config.Errors(config.Default().Validate()) {
		fields = append(fields, e.Field)
	}
	var want []string
	for k := range required {
		want = append(want, k)
	}
	sort.Strings(fields)
	sort.Strings(want)
	if !slices.Equal(fields, want) {
		return fmt.Errorf("reference: config.Default fails validation on %v, but the reference says %v are required; update required in reference.go", fields, want)
	}
	return nil
}

type generator struct {
	docs map[string]typeDoc
	// elements are the defaults of an item of a list of mappings, by type.
	elements map[reflect.Type]reflect.Value
	sections []*section
	errs     []error
}

// walk adds the section at key for struct type t with default values v,
// and the sections of its struct fields after it.
func (g *generator) walk(key string, t reflect.Type, v reflect.Value) {
	s := &section{key: key, doc: g.docs[t.Name()].doc}
	if key == "" {
		s.doc = ""
	}
	g.sections = append(g.sections, s)
	var nested []func()
	order := config.Keys(key)
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name := yamlKey(f)
		full := join(key, name)
		first, _, _ := strings.Cut(name, ".")
		if !slices.Contains(order, first) {
			g.errs = append(g.errs, fmt.Errorf("reference: report.%s.%s is %s in perfgate.yml, which config.Keys(%q) does not list; add it there (parsing needs it too) or give the field a key tag", t.Name(), f.Name, full, key))
			continue
		}
		if rest, ok := strings.CutPrefix(name, first+"."); ok && !slices.Contains(config.Keys(join(key, first)), rest) {
			g.errs = append(g.errs, fmt.Errorf("reference: report.%s.%s is %s in perfgate.yml, which config.Keys(%q) does not list", t.Name(), f.Name, full, join(key, first)))
		}
		seen[first] = true
		fv := v.Field(i)
		if f.Type.Kind() == reflect.Struct && typeNames[f.Type] == "" {
			s.rows = append(s.rows, row{key: full, typ: "mapping", meaning: "See [" + full + "](#" + anchor(full) + ").", field: f, value: fv, mapping: true})
			nested = append(nested, func() { g.walk(full, f.Type, fv) })
			continue
		}
		doc := g.docs[t.Name()].fields[f.Name]
		if doc == "" {
			g.errs = append(g.errs, fmt.Errorf("reference: report.%s.%s (%s in perfgate.yml) has no doc comment; write one in engine/internal/report/config.go: it is the key's documentation", t.Name(), f.Name, full))
		}
		typ, ok := typeNames[f.Type]
		if !ok {
			g.errs = append(g.errs, fmt.Errorf("reference: report.%s.%s has type %s, which the reference has no name for; add it to typeNames in reference.go", t.Name(), f.Name, f.Type))
		}
		if unit := f.Tag.Get("unit"); unit != "" {
			typ += " (" + unit + ")"
		}
		meaning := doc
		if a, ok := allowed[full]; ok {
			meaning += " " + a.how + ": " + codeList(a.values) + "."
		}
		s.rows = append(s.rows, row{key: full, typ: typ, def: defaultText(full, fv), meaning: meaning, field: f, value: fv, doc: doc})
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			elem, ok := g.elements[f.Type.Elem()]
			if !ok {
				g.errs = append(g.errs, fmt.Errorf("reference: report.%s.%s is a list of %s, whose defaults the reference does not know; add them to elements in Markdown", t.Name(), f.Name, f.Type.Elem()))
				continue
			}
			nested = append(nested, func() { g.walk(full+"[]", f.Type.Elem(), elem) })
		}
	}
	for _, k := range order {
		if !seen[k] {
			g.errs = append(g.errs, fmt.Errorf("reference: perfgate.yml's %s is in config.Keys(%q) but no field of report.%s has that key", join(key, k), key, t.Name()))
		}
	}
	rank := func(r row) int {
		k := strings.TrimPrefix(r.key, join(key, ""))
		first, _, _ := strings.Cut(k, ".")
		return slices.Index(order, first)
	}
	sort.SliceStable(s.rows, func(i, j int) bool { return rank(s.rows[i]) < rank(s.rows[j]) })
	for _, n := range nested {
		n()
	}
}

// yamlKey is a field's key in perfgate.yml: its key tag, else its JSON name.
func yamlKey(f reflect.StructField) string {
	if k := f.Tag.Get("key"); k != "" {
		return k
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

func join(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

// anchor is the GitHub heading anchor of a section named `key`.
func anchor(key string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '[' || r == ']' || r == '`' {
			return -1
		}
		return r
	}, key)
}

// defaultText is a key's default as a table cell.
func defaultText(key string, v reflect.Value) string {
	if why, ok := required[key]; ok {
		return why
	}
	if key == "load.requests[].path" {
		return "required"
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Struct {
		return code(s.String())
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return "none"
		}
		return code(v.String())
	case reflect.Int:
		return code(strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		return code(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = fmt.Sprint(v.Index(i).Interface())
		}
		if v.Len() == 0 && v.Type() != reflect.TypeFor[[]string]() {
			return "none"
		}
		return code("[" + strings.Join(items, ", ") + "]")
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		items := make([]string, len(keys))
		for i, k := range keys {
			items[i] = k + ": " + v.MapIndex(reflect.ValueOf(k)).String()
		}
		return code("{" + strings.Join(items, ", ") + "}")
	}
	return code(fmt.Sprint(v.Interface()))
}

func code(s string) string {
	if s == "" {
		return "`\"\"`"
	}
	return "`" + s + "`"
}

func codeList(values []string) string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = code(v)
	}
	return strings.Join(out, ", ")
}

// escapeHTML escapes a doc comment for Markdown, where <run> would be read as
// an HTML tag and hidden.
func escapeHTML(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (g *generator) write(b *bytes.Buffer) {
	fmt.Fprintf(b, "<!-- Code generated from engine/internal/config and engine/internal/report (%s). DO NOT EDIT. -->\n\n", Command)
	b.WriteString(intro())
	for _, s := range g.sections {
		if s.key == "" {
			b.WriteString("\n## Keys\n\n### Top level\n\n")
		} else {
			fmt.Fprintf(b, "\n### `%s`\n\n", s.key)
		}
		if s.doc != "" {
			b.WriteString(escapeHTML(s.doc) + "\n\n")
		}
		b.WriteString("| key | type | default | meaning |\n|---|---|---|---|\n")
		for _, r := range s.rows {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", r.key, cell(r.typ), cell(r.def), cell(escapeHTML(r.meaning)))
		}
	}
}

// intro is the part of the reference that is not a key: where the file
// is, what is required, the units and the limits, each from the code.
func intro() string {
	var b strings.Builder
	b.WriteString(`# perfgate.yml reference

perfgate reads one YAML file, by default ` + "`perfgate.yml`" + ` at the root of the
repository (the Action's ` + "`config`" + ` input, the engine's ` + "`--config`" + `).
Relative paths in it resolve against the tree being built. Every key has a
default except ` + "`service.package`" + `, and the service must be told where to
listen: ` + "`service.args`" + ` or ` + "`service.env`" + ` must use ` + "`{addr}`" + ` (127.0.0.1:PORT, a
free port chosen for each process) or ` + "`{port}`" + `. The smallest useful file:

` + "```yaml\n" + Minimal + "```\n" + `
An unknown key is an error (with a suggestion when it looks like a typo),
and every problem in the file is reported at once, each with its line, key,
value and the allowed form, before anything is built. ` + "`perfgate config check\nperfgate.yml`" + ` checks a file without measuring; it also refuses a ` + "`pairs`" + ` and
` + "`gate.alpha`" + ` whose gate could never fail.

With ` + "`perfgate gate --base <revision>`" + ` the measurement plan comes from the base
revision's file (same path): ` + "`resources`, `target`, `load`, `experiment`, `layout`,\n`layout_align`, `layout_pairing`, `pairs`, `profiles`, `profile_rounds`, `gate` and `validity`" + `, everything that says
what is measured and how it is decided. A pull request that changes them is
measured with the base's values, the comment says so and lists each key
(` + "`config_changes`" + ` in report.json), and the change applies once it merges: a
pull request does not relax its own gate. ` + "`service`" + ` (how to build, start and
reach the service), ` + "`kubernetes`" + ` and ` + "`version`" + ` stay the pull request's:
its code may need them, and base and head run with the same values.
` + "`--target`" + ` still overrides ` + "`target`" + `. A ` + "`perfgate.yml`" + ` the base does not have
is measured as it is, and the comment says so.

Editors that use the YAML language server (VS Code's YAML extension, and
Neovim or Helix with it configured) complete and check the file as it is
typed, from [its JSON Schema](schema/perfgate.schema.json), generated with
this page, when its first line is:

` + "```yaml\n# yaml-language-server: $schema=" + SchemaURL + "\n```" + `

report.json has [one too](schema/report.schema.json) ([report-schema.md](report-schema.md)).

`)
	mib := func(n int) string { return fmt.Sprintf("%g MiB", float64(n)/(1<<20)) }
	fmt.Fprintf(&b, "The file may be at most %s, each request body at most %s, and all bodies\ntogether (YAML aliases count each time) at most %s.\n",
		mib(config.MaxFileBytes), mib(config.MaxBodyBytes), mib(config.MaxBodiesBytes))
	b.WriteString("\n## Units\n\n| type | written as |\n|---|---|\n")
	for _, u := range []struct{ name, want string }{
		{"duration", report.DurationWant},
		{"CPU", report.CPUWant},
		{"bytes", report.BytesWant + " (Ki, Mi, Gi are powers of 1024; k, M, G of 1000)"},
		{"percentage", report.FractionWant + " (10% and 0.1 are the same)"},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", u.name, u.want)
	}
	return b.String()
}

// Write regenerates the reference at path.
func Write(reportDir, path string) error {
	data, err := Markdown(reportDir)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, fs.FileMode(0o644))
}
