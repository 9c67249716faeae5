package reference

import (
	"reflect"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// The patterns of perfgate.yml's units, as JSON Schema writes them
// (ECMA-262, in the subset Go's regexp reads too, so that
// TestUnitPatternsParseLikeReport can hold them against package report's
// parsers). Surrounding space is allowed because the parsers trim it.
const (
	decimalPattern = `[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)`
	// cpuPattern is report.ParseCPU's: cores or millicores.
	cpuPattern = `^\s*` + decimalPattern + `m?\s*$`
	// bytesPattern is report.ParseBytes's: powers of 1024 (Ki...) or 1000 (k...).
	bytesPattern = `^\s*` + decimalPattern + `(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?\s*$`
	// durationPattern is time.ParseDuration's, which report.ParseDuration
	// calls: a bare 0, or numbers each followed by a unit (µs in either
	// of Unicode's two micro signs).
	durationPattern = `^\s*[-+]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)\s*$`
	// fractionPattern is report.ParseFraction's: a percentage or a plain
	// number, which may have an exponent.
	fractionPattern = `^\s*` + decimalPattern + `(?:\s*%|[eE][+-]?[0-9]+)?\s*$`
)

// unit is how one unit type of perfgate.yml is written: as text matching
// pattern, or as the YAML number number allows (nil: text only).
type unit struct {
	want    string
	pattern string
	number  *object
}

// units are perfgate.yml's unit types. A YAML number is read by its text,
// so `cpu: 2` and `gate.cpu: 0.1` are numbers in the editor's eyes and
// valid all the same.
var units = map[reflect.Type]unit{
	reflect.TypeFor[report.Duration](): {report.DurationWant, durationPattern, newObject().set("const", 0)},
	reflect.TypeFor[report.CPU]():      {report.CPUWant, cpuPattern, newObject().set("type", "number")},
	reflect.TypeFor[report.Bytes]():    {report.BytesWant, bytesPattern, newObject().set("type", "integer")},
	reflect.TypeFor[report.Fraction](): {report.FractionWant, fractionPattern, newObject().set("type", "number")},
}

// schema is the unit's JSON Schema: the text form, else the number.
func (u unit) schema() *object {
	text := newObject().set("type", "string").set("pattern", u.pattern)
	return newObject().set("anyOf", []*object{text, u.number})
}
