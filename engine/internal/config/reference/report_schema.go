package reference

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// ReportSchemaURL is the $id of report.json's JSON Schema.
const ReportSchemaURL = "https://raw.githubusercontent.com/perfgate/perfgate/main/docs/schema/report.schema.json"

// ReportSchema is docs/schema/report.schema.json, written from report.Report
// by reflection: each struct type of package report is a definition, its
// fields the JSON names encoding/json writes, in order, each described by
// its doc comment. A field without omitempty (or omitzero) is always
// written, so it is required.
//
// Objects stay open to keys the schema does not name, as the
// compatibility rule of report's schema.go requires: a newer engine may add
// fields to the same Schema version, and readers ignore them.
func ReportSchema(reportDir string) ([]byte, error) {
	docs, err := readDocs(reportDir, firstParagraph)
	if err != nil {
		return nil, err
	}
	w := &reportWalk{docs: docs, definitions: newObject()}
	root := newObject().
		set("$schema", draft07).
		set("$id", ReportSchemaURL).
		set("$comment", "Code generated from engine/internal/report ("+Command+"). DO NOT EDIT.").
		set("title", "report.json").
		set("description", fmt.Sprintf("The record of one perfgate experiment, schema %d; docs/report-schema.md says how to read it.", report.Schema))
	body := w.schema(reflect.TypeFor[report.Report]())
	for _, k := range body.keys {
		if k != "description" { // "Report is report.json."
			root.set(k, body.get(k))
		}
	}
	root.set("definitions", w.definitions)
	if len(w.errs) > 0 {
		return nil, fmt.Errorf("reference: %v", w.errs)
	}
	return indented(root)
}

type reportWalk struct {
	docs        map[string]typeDoc
	definitions *object
	errs        []string
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// schema is the JSON Schema of the values of type t as encoding/json
// writes them; report's struct types are references to their definitions,
// except for the root.
func (w *reportWalk) schema(t reflect.Type) *object {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return newObject().set("type", "string").set("format", "date-time")
	case t.Implements(textMarshaler):
		// perfgate.yml's units (report.CPU, ...), in their canonical text.
		if u, ok := units[t]; ok {
			return newObject().set("type", "string").set("description", "Written as "+u.want+".")
		}
		return newObject().set("type", "string")
	}
	switch t.Kind() {
	case reflect.Bool:
		return newObject().set("type", "boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return newObject().set("type", "integer")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return newObject().set("type", "integer").set("minimum", 0)
	case reflect.Float32, reflect.Float64:
		return newObject().set("type", "number")
	case reflect.String:
		return newObject().set("type", "string")
	case reflect.Pointer:
		return w.schema(t.Elem())
	case reflect.Array:
		return newObject().set("type", "array").set("items", w.schema(t.Elem())).set("minItems", t.Len()).set("maxItems", t.Len())
	case reflect.Slice:
		return newObject().set("type", "array").set("items", w.schema(t.Elem()))
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			break
		}
		return newObject().set("type", "object").set("additionalProperties", w.schema(t.Elem()))
	case reflect.Struct:
		if t == reflect.TypeFor[report.Report]() {
			return w.structSchema(t)
		}
		ref := "#/definitions/" + t.Name()
		if w.definitions.get(t.Name()) == nil {
			w.definitions.set(t.Name(), newObject()) // a placeholder, for types that contain themselves
			w.definitions.set(t.Name(), w.structSchema(t))
		}
		return newObject().set("$ref", ref)
	}
	w.errs = append(w.errs, fmt.Sprintf("%s has no JSON Schema shape; add one to reportWalk.schema", t))
	return newObject()
}

// structSchema is a struct's object: its fields, and those of the structs
// it embeds, which encoding/json writes beside its own.
func (w *reportWalk) structSchema(t reflect.Type) *object {
	schema := newObject()
	if doc := w.docs[t.Name()].doc; doc != "" {
		schema.set("description", doc)
	}
	properties := newObject()
	var required []string
	w.fields(t, properties, &required)
	schema.set("type", "object").set("properties", properties)
	if required != nil {
		schema.set("required", required)
	}
	return schema
}

func (w *reportWalk) fields(t reflect.Type, properties *object, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" {
			w.fields(f.Type, properties, required)
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+options+",", ",omitempty,") || strings.Contains(","+options+",", ",omitzero,")
		value := w.schema(f.Type)
		if !optional && canBeNull(f.Type) {
			value = nullable(value)
		}
		if doc := w.docs[t.Name()].fields[f.Name]; doc != "" {
			value = described(value, doc)
		}
		properties.set(name, value)
		if !optional {
			*required = append(*required, name)
		}
	}
}

// nullable lets a value be null, as encoding/json writes a nil slice, map
// or pointer.
func nullable(schema *object) *object {
	if t, ok := schema.get("type").(string); ok {
		return schema.set("type", []string{t, "null"})
	}
	return newObject().set("anyOf", []*object{schema, newObject().set("type", "null")})
}

func canBeNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return true
	}
	return false
}

// described adds a description to a field's schema. Beside a $ref,
// draft-07 ignores every other keyword, so a reference is wrapped.
func described(schema *object, doc string) *object {
	if schema.get("$ref") != nil {
		schema = newObject().set("allOf", []*object{schema})
	}
	if own, ok := schema.get("description").(string); ok {
		doc += " " + own
	}
	out := newObject().set("description", doc)
	for _, k := range schema.keys {
		if k != "description" {
			out.set(k, schema.get(k))
		}
	}
	return out
}
