package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// SchemaURL is where editors fetch perfgate.yml's JSON Schema: the first
// line of a perfgate.yml, `# yaml-language-server: $schema=<SchemaURL>`,
// points the YAML language server (VS Code's YAML extension, Neovim, Helix,
// ...) at it.
const SchemaURL = "https://raw.githubusercontent.com/perfgate/perfgate/main/docs/schema/perfgate.schema.json"

// draft07 is the JSON Schema version of both schemas: the one every
// editor's YAML support and validator reads, where 2019-09 and 2020-12 need
// recent versions, and perfgate.yml's rules need nothing newer.
const draft07 = "http://json-schema.org/draft-07/schema#"

// shorthands are the keys whose sub-keys may also be given one value for
// all: config reads `pairs: 10` as pairs.min and pairs.max alike.
var shorthands = map[string]bool{"pairs": true}

// writtenAs are keys whose field is a plain number but which config
// parses as a unit: gate.alpha is a level like 0.01, and 1% is the same.
var writtenAs = map[string]reflect.Type{
	"gate.alpha": reflect.TypeFor[report.Fraction](),
}

// shortForms are the items of a list of mappings that may also be written
// as one string, by the type of the item.
var shortForms = map[reflect.Type]func() *object{
	reflect.TypeFor[report.Request](): requestShortForm,
}

// scalarText is a string key's value: the parser takes any YAML scalar by
// its text, so `PORT: 8080` and `body: 1` are strings to perfgate.
var scalarText = []string{"string", "number", "boolean"}

// ConfigSchema is docs/schema/perfgate.schema.json, written from the same
// walk over the config types as docs/config.md: every key the reference
// documents, with its doc comment, type, default and allowed values.
func ConfigSchema(reportDir string) ([]byte, error) {
	g, err := walkConfig(reportDir)
	if err != nil {
		return nil, err
	}
	root := newObject().
		set("$schema", draft07).
		set("$id", SchemaURL).
		set("$comment", "Code generated from engine/internal/config and engine/internal/report ("+Command+"). DO NOT EDIT.").
		set("title", "perfgate.yml").
		set("description", "perfgate's configuration; docs/config.md says what each key means, with the units and limits. An unknown key is an error.")
	body := g.sectionSchema("")
	for _, k := range body.keys {
		if k != "description" {
			root.set(k, body.get(k))
		}
	}
	if len(g.errs) > 0 {
		return nil, errors.Join(g.errs...)
	}
	return indented(root)
}

// sectionSchema is the schema of the mapping at key: its keys in the
// reference's order, no others.
func (g *generator) sectionSchema(key string) *object {
	var s *section
	for _, candidate := range g.sections {
		if candidate.key == key {
			s = candidate
		}
	}
	properties := newObject()
	var required []string
	groups := map[string]*object{}
	for _, r := range s.rows {
		name := strings.TrimPrefix(r.key, join(key, ""))
		if group, member, ok := strings.Cut(name, "."); ok {
			if groups[group] == nil {
				groups[group] = newObject()
				properties.set(group, g.groupSchema(join(key, group), r, groups[group]))
			}
			groups[group].set(member, g.keySchema(r))
			continue
		}
		schema := g.keySchema(r)
		properties.set(name, schema)
		if mustBeGiven(r.key) || r.mapping && schema.get("required") != nil {
			required = append(required, name)
		}
	}
	schema := newObject()
	if s.doc != "" {
		schema.set("description", s.doc)
	}
	if required == nil {
		schema.set("type", []string{"object", "null"}) // an empty section keeps every default
	} else {
		schema.set("type", "object")
	}
	schema.set("additionalProperties", false).set("properties", properties)
	if required != nil {
		schema.set("required", required)
	}
	return schema
}

// groupSchema is the schema of keys like pairs.min and pairs.max under
// group, whose first row r documents the group: a mapping of its members
// (the caller fills them in), and for a shorthand also one value for all.
func (g *generator) groupSchema(group string, r row, members *object) *object {
	mapping := newObject().set("type", "object").set("additionalProperties", false).set("properties", members)
	if !shorthands[group] {
		return mapping
	}
	return newObject().set("description", r.doc).set("anyOf", []*object{g.valueSchema(r), mapping})
}

// keySchema is one key's schema: its section's, or its value's with what
// the reference says of it.
func (g *generator) keySchema(r row) *object {
	if r.mapping {
		return g.sectionSchema(r.key)
	}
	schema := newObject()
	description := r.doc
	if u := r.field.Tag.Get("unit"); u != "" {
		description += " In " + u + "."
	}
	if u, ok := units[writtenType(r)]; ok {
		description += " Written as " + u.want + "."
	}
	schema.set("description", description)
	if def, ok := defaultValue(r); ok {
		schema.set("default", def)
	}
	value := g.valueSchema(r)
	for _, k := range value.keys {
		schema.set(k, value.get(k))
	}
	return schema
}

// valueSchema is the shape of a key's value, by the Go type of its field.
func (g *generator) valueSchema(r row) *object {
	t := writtenType(r)
	enum, hasEnum := allowed[r.key]
	if u, ok := units[t]; ok {
		return u.schema()
	}
	switch t {
	case reflect.TypeFor[string]():
		if hasEnum {
			return newObject().set("enum", enum.values)
		}
		return newObject().set("type", scalarText)
	case reflect.TypeFor[int]():
		return newObject().set("type", "integer")
	case reflect.TypeFor[float64]():
		return newObject().set("type", "number")
	case reflect.TypeFor[bool]():
		return newObject().set("type", "boolean")
	case reflect.TypeFor[[]string]():
		item := newObject().set("type", scalarText)
		if hasEnum {
			item = newObject().set("enum", enum.values)
		}
		return newObject().set("type", []string{"array", "null"}).set("items", item)
	case reflect.TypeFor[map[string]string]():
		// A key with no value maps to "".
		value := newObject().set("type", slices.Concat(scalarText, []string{"null"}))
		return newObject().set("type", []string{"object", "null"}).set("additionalProperties", value)
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		item := g.sectionSchema(r.key + "[]")
		if short, ok := shortForms[t.Elem()]; ok {
			item = newObject().set("anyOf", []*object{short(), item})
		}
		return newObject().set("type", []string{"array", "null"}).set("items", item)
	}
	g.errs = append(g.errs, fmt.Errorf("reference: %s has type %s, which the schema has no shape for; add it to valueSchema in schema.go", r.key, t))
	return newObject()
}

// writtenType is the type whose text form a key's value takes.
func writtenType(r row) reflect.Type {
	if t, ok := writtenAs[r.key]; ok {
		return t
	}
	return r.field.Type
}

// mustBeGiven reports whether the user must write key: it has no default.
func mustBeGiven(key string) bool {
	return required[key] == "required" || key == "load.requests[].path"
}

// defaultValue is a key's default as perfgate.yml would write it (units
// in their canonical text), none for a key without one.
func defaultValue(r row) (json.RawMessage, bool) {
	if mustBeGiven(r.key) || r.value.Kind() == reflect.String && r.value.String() == "" {
		return nil, false
	}
	data, err := json.Marshal(r.value.Interface())
	if err != nil || string(data) == "null" {
		return nil, false
	}
	return data, true
}

// requestShortForm is a request written as "METHOD /path": one of
// config's methods, then a path that starts with a single slash, as
// config.ParseRequest splits it and validation checks it.
func requestShortForm() *object {
	methods := make([]string, len(allowed["load.requests[].method"].values))
	for i, m := range allowed["load.requests[].method"].values {
		methods[i] = regexp.QuoteMeta(m)
	}
	pattern := `^\s*(?:` + strings.Join(methods, "|") + `)\s+/(?:[^/\s]\S*)?\s*$`
	return newObject().set("type", "string").set("pattern", pattern)
}
