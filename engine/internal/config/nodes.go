package config

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// mapping walks a mapping node, reporting duplicate and unknown keys and
// calling each for the known ones. A null value (a key with nothing after
// it) is an empty mapping, so every key inside keeps its default.
func (d *diagnostics) mapping(n *yaml.Node, field string, each func(key string, value *yaml.Node, field string)) {
	section := indexes.ReplaceAllString(field, "[]")
	known := keys[section]
	n = deref(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, field, "a mapping with keys "+strings.Join(known, ", "))
		return
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		f := join(field, k.Value)
		if k.Kind != yaml.ScalarNode {
			d.wrongKind(k, join(field, "(key)"), "a key, one of "+strings.Join(known, ", "))
			continue
		}
		if line, dup := first[k.Value]; dup {
			d.at(k.Line, f, Error{Problem: fmt.Sprintf("is given twice (first on line %d)", line), Want: "each key once"})
			continue
		}
		first[k.Value] = k.Line
		if !slices.Contains(known, k.Value) {
			d.unknown(k, field, section, known)
			continue
		}
		d.lines[f] = k.Line
		each(k.Value, v, f)
	}
}

// unknown reports a key the section does not have, with the closest known
// key, or the section it belongs to when it looks mis-indented.
func (d *diagnostics) unknown(k *yaml.Node, field, section string, known []string) {
	e := Error{Problem: "is not a known key", Want: "one of " + strings.Join(known, ", ")}
	var elsewhere []string
	for _, other := range slices.Sorted(maps.Keys(keys)) {
		if other != section && !strings.Contains(other, "[]") && slices.Contains(keys[other], k.Value) {
			elsewhere = append(elsewhere, join(other, k.Value))
		}
	}
	switch s := suggest(k.Value, known); {
	case k.ShortTag() == "!!merge":
		e.Problem, e.Hint = "is a YAML merge key", "perfgate.yml does not support merge keys; write the keys out"
	case len(elsewhere) > 0:
		e.Hint = "did you mean " + strings.Join(elsewhere, " or ") + "? check the indentation"
	case s != "":
		e.Hint = "did you mean " + strconv.Quote(s) + "?"
	}
	d.at(k.Line, join(field, k.Value), e)
}

// stringList reads a list of scalars; a null value is an empty list.
func (d *diagnostics) stringList(n *yaml.Node, field, want string, dst *[]string) {
	n = deref(n)
	if isNull(n) {
		*dst = []string{}
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.wrongKind(n, field, want)
		return
	}
	out := make([]string, len(n.Content))
	for i, item := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		d.lines[f] = item.Line
		scalarInto(d, item, f, "a string", parseString, &out[i])
	}
	*dst = out
}

// stringMap reads a mapping of scalars; a null value is an empty mapping
// and a key with no value maps to "".
func (d *diagnostics) stringMap(n *yaml.Node, field, want string, dst *map[string]string) {
	n = deref(n)
	out := map[string]string{}
	*dst = out
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, field, want)
		return
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.wrongKind(k, join(field, "(key)"), want)
			continue
		}
		f := join(field, k.Value)
		if line, dup := first[k.Value]; dup {
			d.at(k.Line, f, Error{Problem: fmt.Sprintf("is given twice (first on line %d)", line), Want: "each key once"})
			continue
		}
		first[k.Value] = k.Line
		d.lines[f] = k.Line
		if isNull(v) {
			out[k.Value] = ""
			continue
		}
		var s string
		scalarInto(d, v, f, "a string", parseString, &s)
		out[k.Value] = s
	}
}

// scalarInto parses a scalar node into dst, recording the text as written
// for later messages, or records why it cannot.
func scalarInto[T any](d *diagnostics, n *yaml.Node, field, want string, parse func(string) (T, error), dst *T) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		d.wrongKind(n, field, want)
		return
	}
	if isNull(n) {
		d.bad[field] = true
		d.at(n.Line, field, Error{Problem: "has no value", Want: want})
		return
	}
	d.raw[field] = n.Value
	v, err := parse(n.Value)
	if err != nil {
		d.bad[field] = true
		e := Error{Value: n.Value, Want: want}
		var pe *Error
		if errors.As(err, &pe) {
			e.Problem, e.Hint = pe.Problem, pe.Hint
		}
		d.at(n.Line, field, e)
		return
	}
	*dst = v
}

// wrongKind reports a value of the wrong shape: a list where a mapping
// goes, a string where a list goes, and so on.
func (d *diagnostics) wrongKind(n *yaml.Node, field, want string) {
	d.bad[field] = true
	e := Error{Want: want}
	switch n.Kind {
	case yaml.MappingNode:
		e.Problem = "is a mapping"
	case yaml.SequenceNode:
		e.Problem = "is a list"
	default:
		e.Value = n.Value
		switch n.ShortTag() {
		case "!!int", "!!float":
			e.Problem = "is a number"
		case "!!bool":
			e.Problem = "is a boolean"
		case "!!null":
			e.Problem = "has no value"
		default:
			e.Problem = "is a string"
		}
	}
	if field == "" {
		e.Problem = "the document " + e.Problem
	}
	d.at(n.Line, field, e)
}

func parseString(s string) (string, error) { return s, nil }

func parseInt(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, &Error{Value: s, Problem: "is not a whole number"}
	}
	return n, nil
}

func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &Error{Value: s, Problem: "is not a number"}
	}
	return f, nil
}

// deref follows YAML aliases (*name) to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}
