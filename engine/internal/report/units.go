package report

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The quantities of report.json's config are written as text, the way
// perfgate.yml writes them ("500m", "256Mi", "10s", "10%"). Their text
// form is part of the contract, so it is defined here; package config
// parses perfgate.yml into these same types and adds the file and line to
// a UnitError.

// What each unit accepts, said the same way in every message.
const (
	CPUWant      = "cores like 2, 0.5 or millicores like 500m"
	BytesWant    = "a quantity like 256Mi, 1Gi, 512Ki, 100M or plain bytes"
	DurationWant = "a duration like 3s, 500ms or 1m30s"
	FractionWant = "a percentage like 10% or a fraction like 0.1"
)

// UnitError is text that is not a quantity of its unit.
type UnitError struct {
	Value string
	// Problem says what is wrong ("is not valid" when empty).
	Problem string
	// Want is the unit's accepted form (CPUWant, …).
	Want string
	// Hint is an optional likely fix, e.g. `did you mean "256Mi"?`.
	Hint string
}

func (e *UnitError) Error() string {
	problem := e.Problem
	if problem == "" {
		problem = "is not valid"
	}
	if e.Hint != "" {
		problem += " (" + e.Hint + ")"
	}
	return strconv.Quote(e.Value) + " " + problem + "; want " + e.Want
}

// decimal is a plain decimal number, the only form unit quantities take.
var decimal = `[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)`

// CPU is a CPU limit in millicores, written like a Kubernetes quantity:
// "2" and "0.5" are cores, "500m" is millicores.
type CPU int64

var cpuPattern = regexp.MustCompile(`^(` + decimal + `)(m?)$`)

// ParseCPU reads cores ("2", "0.5") or millicores ("500m"). Values finer
// than a millicore are rejected rather than rounded, since the limit would
// silently differ from what the user wrote.
func ParseCPU(s string) (CPU, error) {
	m := cpuPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, &UnitError{Value: s, Want: CPUWant}
	}
	millis := exact(m[1])
	if m[2] == "" {
		millis.Mul(millis, big.NewRat(1000, 1))
	}
	if !millis.IsInt() {
		return 0, &UnitError{Value: s, Problem: "is finer than 1m (a thousandth of a core)", Want: CPUWant}
	}
	if !millis.Num().IsInt64() {
		return 0, &UnitError{Value: s, Problem: "is too large", Want: CPUWant}
	}
	return CPU(millis.Num().Int64()), nil
}

// Cores is the limit in cores, e.g. 0.5.
func (c CPU) Cores() float64 { return float64(c) / 1000 }

// String is the canonical form: whole cores as "2", anything else as "500m".
func (c CPU) String() string {
	if c%1000 == 0 {
		return strconv.FormatInt(int64(c)/1000, 10)
	}
	return strconv.FormatInt(int64(c), 10) + "m"
}

// MarshalText writes the canonical form, so report.json shows "500m".
func (c CPU) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads any form ParseCPU accepts.
func (c *CPU) UnmarshalText(b []byte) error {
	v, err := ParseCPU(string(b))
	if err == nil {
		*c = v
	}
	return err
}

// Bytes is a memory size in bytes, written like a Kubernetes quantity:
// 256Mi, 1Gi, 512Ki (powers of 1024), 100M, 1G, 5k (powers of 1000), or
// plain bytes.
type Bytes int64

var (
	bytesPattern   = regexp.MustCompile(`^(` + decimal + `)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)
	leadingDecimal = regexp.MustCompile(`^` + decimal)
)

// byteUnits is every suffix with its size, the largest first within each
// family, binary before decimal so ties print as binary.
var byteUnits = []struct {
	suffix string
	size   int64
}{
	{"Ei", 1 << 60}, {"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10},
	{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3},
}

// ParseBytes reads a quantity such as 256Mi, 1.5Gi, 100M or 1048576.
// Fractions of a byte are rejected.
func ParseBytes(s string) (Bytes, error) {
	m := bytesPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		e := &UnitError{Value: s, Want: BytesWant}
		if hint := bytesHint(strings.TrimSpace(s)); hint != "" {
			e.Hint = "did you mean " + strconv.Quote(hint) + "?"
		}
		return 0, e
	}
	n := exact(m[1])
	for _, u := range byteUnits {
		if u.suffix == m[2] {
			n.Mul(n, new(big.Rat).SetInt64(u.size))
		}
	}
	if !n.IsInt() {
		return 0, &UnitError{Value: s, Problem: "is not a whole number of bytes", Want: BytesWant}
	}
	if !n.Num().IsInt64() {
		return 0, &UnitError{Value: s, Problem: "is too large", Want: BytesWant}
	}
	return Bytes(n.Num().Int64()), nil
}

// bytesHint maps the usual non-Kubernetes spellings (256MB, 1GiB, 512K) to
// the quantity the user most likely meant.
func bytesHint(s string) string {
	num := leadingDecimal.FindString(s)
	if num == "" {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(s[len(num):])) {
	case "k", "kb", "kib":
		return num + "Ki"
	case "m", "mb", "mib":
		return num + "Mi"
	case "g", "gb", "gib":
		return num + "Gi"
	case "t", "tb", "tib":
		return num + "Ti"
	}
	return ""
}

// String is the shortest exact form: 256Mi, 1G, or plain bytes.
func (b Bytes) String() string {
	n := int64(b)
	if n == 0 || n == math.MinInt64 {
		return strconv.FormatInt(n, 10)
	}
	if n < 0 {
		return "-" + Bytes(-n).String()
	}
	best := strconv.FormatInt(n, 10)
	bestCount := n
	for _, u := range byteUnits {
		if n%u.size == 0 && n/u.size < bestCount {
			best, bestCount = strconv.FormatInt(n/u.size, 10)+u.suffix, n/u.size
		}
	}
	return best
}

// MarshalText writes the canonical form, so report.json shows "256Mi".
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads any form ParseBytes accepts.
func (b *Bytes) UnmarshalText(text []byte) error {
	v, err := ParseBytes(string(text))
	if err == nil {
		*b = v
	}
	return err
}

// Duration is a time span written the Go way: 3s, 500ms, 1m30s; a bare 0
// is also accepted.
type Duration time.Duration

// ParseDuration reads a Go duration such as 3s, 500ms or 1m30s.
func ParseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		e := &UnitError{Value: s, Want: DurationWant}
		if _, numErr := strconv.ParseFloat(strings.TrimSpace(s), 64); numErr == nil {
			e.Problem = "has no unit"
			e.Hint = "did you mean " + strconv.Quote(strings.TrimSpace(s)+"s") + "?"
		}
		return 0, e
	}
	return Duration(d), nil
}

// Std is the duration as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String is the canonical Go form, e.g. "3s", "1m30s", "0s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes the canonical form, so report.json shows "3s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads any form ParseDuration accepts.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err == nil {
		*d = v
	}
	return err
}

// Fraction is a share such as a threshold or a rate, 0.1 for 10%. It is
// written either as a percentage ("10%") or as a plain number ("0.1").
type Fraction float64

var (
	percentPattern  = regexp.MustCompile(`^(` + decimal + `)\s*%$`)
	fractionPattern = regexp.MustCompile(`^` + decimal + `(?:[eE][+-]?[0-9]+)?$`)
)

// ParseFraction reads "10%" as 0.1 and "0.1" as 0.1. A percentage is
// converted in decimal (10% is read as the text 10e-2), so that String
// gives back exactly what was parsed.
func ParseFraction(s string) (Fraction, error) {
	t := strings.TrimSpace(s)
	text := t
	if m := percentPattern.FindStringSubmatch(t); m != nil {
		text = m[1] + "e-2"
	} else if !fractionPattern.MatchString(t) {
		return 0, &UnitError{Value: s, Want: FractionWant}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, &UnitError{Value: s, Want: FractionWant}
	}
	return Fraction(f), nil
}

// String is the percentage, exact to the last digit: "10%", "0.1%", "2.5%".
func (f Fraction) String() string {
	v := float64(f)
	if v == 0 {
		return "0%"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	// Shift the decimal point of the shortest exact digits two places to
	// the right instead of multiplying by 100, which would round.
	s := strconv.FormatFloat(v, 'e', -1, 64) // like -1.25e-03
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mantissa, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mantissa, ".", "", 1)
	point := exp + 1 + 2 // digits before the decimal point of the percentage
	var out string
	switch {
	case point <= 0:
		out = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		out = digits + strings.Repeat("0", point-len(digits))
	default:
		out = digits[:point] + "." + digits[point:]
	}
	return sign + out + "%"
}

// MarshalText writes the percentage, so report.json shows "10%".
func (f Fraction) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads any form ParseFraction accepts.
func (f *Fraction) UnmarshalText(b []byte) error {
	v, err := ParseFraction(string(b))
	if err == nil {
		*f = v
	}
	return err
}

// exact reads a decimal already checked against the decimal pattern.
func exact(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("report: unchecked decimal " + s)
	}
	return r
}
