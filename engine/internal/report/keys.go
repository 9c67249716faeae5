package report

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// CheckKeys refuses a report.json that two JSON readers could read
// differently. Go's encoding/json matches an object's keys to fields
// without regard to case and keeps the last of repeated keys; JavaScript's
// JSON.parse (the Action) keeps the last too, but matches case exactly.
// So {"verdict":"pass","Verdict":"regression"} is a regression to
// `perfgate report` and a pass to the Action. Refused, at any depth: a key
// repeated in one object, two keys of one object that differ only in case
// (Unicode simple case folding, as Go matches them), and a key that
// differs only in case from the field it would fill.
func CheckKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return checkValue(dec, reflect.TypeFor[Report](), "", 0)
}

// maxKeyDepth is encoding/json's own nesting limit.
const maxKeyDepth = 10000

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkValue reads one value from dec; t is the Go type it decodes into,
// or nil where that is not known (an unknown key, a custom decoder).
func checkValue(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	if depth > maxKeyDepth {
		return fmt.Errorf("report.json nests deeper than %d levels", maxKeyDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("report.json is not valid JSON: %w", err)
	}
	t = decodedType(t)
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			fields = map[string]reflect.Type{}
			jsonFields(t, fields)
		}
		seen := map[string]string{} // folded key → key as written
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("report.json is not valid JSON: %w", err)
			}
			key := tok.(string)
			if earlier, ok := seen[foldKey(key)]; ok {
				if earlier == key {
					return fmt.Errorf("report.json repeats the key %s %s; refusing a report that JSON readers disagree on", showKey(key), where(path))
				}
				return fmt.Errorf("report.json has the keys %s and %s %s, which differ only in case; refusing a report that JSON readers disagree on", showKey(earlier), showKey(key), where(path))
			}
			seen[foldKey(key)] = key
			var next reflect.Type
			switch {
			case fields != nil:
				ft, exact := fields[key]
				if !exact {
					for name := range fields {
						if foldKey(name) == foldKey(key) {
							return fmt.Errorf("report.json has the key %s %s, but the field is spelled %q; refusing a report that JSON readers disagree on", showKey(key), where(path), name)
						}
					}
				}
				next = ft
			case t != nil && t.Kind() == reflect.Map:
				next = t.Elem()
			}
			if err := checkValue(dec, next, join(path, key), depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, elem, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

// decodedType is the type whose fields a JSON object fills: pointers
// followed, and nil for a type that decodes itself (time.Time, units).
func decodedType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	if p := reflect.PointerTo(t); p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) {
		return nil
	}
	return t
}

// jsonFields adds the JSON names of t's fields, as encoding/json sees
// them: tag names, Go names without a tag, embedded structs' fields
// promoted (the shallower name wins).
func jsonFields(t reflect.Type, into map[string]reflect.Type) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := decodedType(f.Type); et != nil && et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
	for _, et := range embedded {
		promoted := map[string]reflect.Type{}
		jsonFields(et, promoted)
		for name, ft := range promoted {
			if _, ok := into[name]; !ok {
				into[name] = ft
			}
		}
	}
}

// foldKey maps every rune to the smallest of its simple case folding
// orbit, so foldKey(a) == foldKey(b) exactly when strings.EqualFold(a, b)
// (which is how encoding/json matches keys to fields).
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// join extends a path of keys (config.service.env) for messages; a key
// that is not a plain name is quoted.
func join(path, key string) string {
	if !plainKey.MatchString(key) {
		key = showKey(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// showKey quotes a key for a message, cut to 64 bytes: it may be hostile.
func showKey(key string) string {
	if len(key) > 64 {
		key = strings.ToValidUTF8(key[:64], "") + "…"
	}
	return strconv.Quote(key)
}

func where(path string) string {
	if path == "" {
		return "at the top level"
	}
	return "in " + path
}
