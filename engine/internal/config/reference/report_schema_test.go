package reference

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestReportSchemaDescribesWhatTheEngineWrites marshals a report.Report
// with every field set, and one with every field at its zero value (nil
// slices written as null, omitempty keys left out), and checks both
// against the generated schema with every object closed: the reflection
// (JSON names, embedded structs, omitempty, omitzero, text units) agrees
// with encoding/json. The reports of real runs in the repository's
// testdata are checked by __tests__/schemas.test.ts with ajv.
func TestReportSchemaDescribesWhatTheEngineWrites(t *testing.T) {
	data, err := ReportSchema(reportDir)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	full := report.Report{}
	fill(reflect.ValueOf(&full).Elem(), 0)
	for name, r := range map[string]report.Report{"every field set": full, "every field zero": {}} {
		written, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var value any
		if err := json.Unmarshal(written, &value); err != nil {
			t.Fatal(err)
		}
		if problems := check(schema, schema, value, ""); len(problems) > 0 {
			t.Errorf("%s: report.json does not match its schema:\n%s", name, strings.Join(problems, "\n"))
		}
	}
}

// TestReportSchemaRefusesAMistake: the checker above is not blind.
func TestReportSchemaRefusesAMistake(t *testing.T) {
	data, err := ReportSchema(reportDir)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"verdict": "pass"}`, `{"schema": "1"}`, `{"no_such_key": 1}`} {
		var value any
		if err := json.Unmarshal([]byte(bad), &value); err != nil {
			t.Fatal(err)
		}
		if len(check(schema, schema, value, "")) == 0 {
			t.Errorf("%s matches report.json's schema", bad)
		}
	}
}

// fill sets every field of v to a value that is not zero, lists and
// mappings to one item, down to depth 4 (a FlameNode contains itself),
// where pointers point at zero values.
func fill(v reflect.Value, depth int) {
	if depth > 4 {
		if v.Kind() == reflect.Pointer {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 11, 28, 1, 2, 3, 4, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1000)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		item := reflect.New(v.Type().Elem()).Elem()
		fill(item, depth+1)
		v.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), item)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

// check is a draft-07 checker for the keywords the generated schemas use,
// with objects closed to the keys they name. It returns what does not
// match, each with its JSON path.
func check(root, schema map[string]any, value any, path string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/definitions/")
		return check(root, root["definitions"].(map[string]any)[name].(map[string]any), value, path)
	}
	var problems []string
	for _, sub := range list(schema["allOf"]) {
		problems = append(problems, check(root, sub.(map[string]any), value, path)...)
	}
	if anyOf := list(schema["anyOf"]); anyOf != nil {
		if !slices.ContainsFunc(anyOf, func(sub any) bool { return len(check(root, sub.(map[string]any), value, path)) == 0 }) {
			problems = append(problems, fmt.Sprintf("%s: %v matches none of anyOf", path, value))
		}
	}
	if types, ok := schema["type"]; ok && !slices.ContainsFunc(append(list(types), types), func(t any) bool { return isType(t, value) }) {
		return append(problems, fmt.Sprintf("%s: %v is not of type %v", path, value, types))
	}
	if pattern, ok := schema["pattern"].(string); ok {
		if s, ok := value.(string); ok && !regexp.MustCompile(pattern).MatchString(s) {
			problems = append(problems, fmt.Sprintf("%s: %q does not match %s", path, s, pattern))
		}
	}
	switch v := value.(type) {
	case map[string]any:
		properties, closed := schema["properties"].(map[string]any)
		if !closed && schema["additionalProperties"] == nil {
			break // a schema that says nothing of the object's keys (allOf's wrapper)
		}
		for _, k := range list(schema["required"]) {
			if _, ok := v[k.(string)]; !ok {
				problems = append(problems, fmt.Sprintf("%s: %s is required", path, k))
			}
		}
		for k, item := range v {
			switch sub := schema["additionalProperties"].(type) {
			case map[string]any:
				problems = append(problems, check(root, sub, item, path+"/"+k)...)
			default:
				if p, ok := properties[k].(map[string]any); ok {
					problems = append(problems, check(root, p, item, path+"/"+k)...)
				} else {
					problems = append(problems, fmt.Sprintf("%s: %s is not a key the schema names", path, k))
				}
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, item := range v {
				problems = append(problems, check(root, items, item, fmt.Sprintf("%s/%d", path, i))...)
			}
		}
		if n, ok := schema["minItems"].(float64); ok && float64(len(v)) < n {
			problems = append(problems, fmt.Sprintf("%s: fewer than %v items", path, n))
		}
		if n, ok := schema["maxItems"].(float64); ok && float64(len(v)) > n {
			problems = append(problems, fmt.Sprintf("%s: more than %v items", path, n))
		}
	}
	return problems
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func isType(t, value any) bool {
	switch v := value.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && v == float64(int64(v))
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}
