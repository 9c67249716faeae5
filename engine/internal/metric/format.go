package metric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file is perfgate's one number formatter: every renderer (the
// terminal summary, report.md, report.html) and the verdict's reason show
// figures through it, so a number reads the same everywhere. The catalog
// says which Display each metric uses.

// Display is how a metric's values read.
type Display int

const (
	// Decimal shows the number and the unit: "373.7 µs/req", "0.94 ms".
	Decimal Display = iota
	// Percentage shows a ratio as a percentage, "0.04%", and an absolute
	// change in percentage points, "+0.12 pp".
	Percentage
	// BinaryBytes scales a unit that starts with B by powers of 1024:
	// "48 KiB/1k req".
	BinaryBytes
)

// Format shows a value of m with its unit.
func (m *Metric) Format(v float64) string {
	switch m.Display {
	case Percentage:
		return Number(100*v) + "%"
	case BinaryBytes:
		return binaryBytes(v, m.Unit)
	}
	if m.Unit == "ms" && v != 0 && math.Abs(v) < 1 {
		// A latency under a millisecond reads in microseconds: "357.5 µs",
		// not "0.3575 ms".
		return Number(1000*v) + " µs"
	}
	return Number(v) + " " + m.Unit
}

// FormatChange shows a change of m: a signed percentage for relative
// metrics ("+4.1%"), percentage points for absolute ratios ("+0.12 pp"),
// otherwise a signed amount with the unit ("+1.2 goroutines/1k req").
func (m *Metric) FormatChange(v float64) string {
	switch {
	case m.Scale == Relative:
		return fmt.Sprintf("%+.1f%%", 100*v)
	case m.Display == Percentage:
		return fmt.Sprintf("%+.2f pp", 100*v)
	}
	return m.FormatAmount(v)
}

// FormatAmount shows a signed amount in m's own unit, whatever its
// scale: "+33.2 allocs/req", "-1.5 KiB/1k req".
func (m *Metric) FormatAmount(v float64) string {
	sign := "+"
	if v < 0 {
		sign = "-"
	}
	return sign + m.Format(math.Abs(v))
}

// FormatInterval shows a confidence interval of a change with the unit
// once and both bounds on one scale: "-14.7% to -2.0%", "+0.00 to +0.12
// pp", "-13.25 to -1.251 goroutines/1k req", "+3.958 to +4.032 MiB/1k req".
func (m *Metric) FormatInterval(low, high float64) string {
	switch {
	case m.Scale == Relative:
		return m.FormatChange(low) + " to " + m.FormatChange(high)
	case m.Display == Percentage:
		return fmt.Sprintf("%+.2f to %+.2f pp", 100*low, 100*high)
	case m.Display == BinaryBytes:
		size, prefix := binaryPrefix(max(math.Abs(low), math.Abs(high)))
		return Signed(low/size) + " to " + Signed(high/size) + " " + prefix + m.Unit
	}
	return Signed(low) + " to " + Signed(high) + " " + m.Unit
}

// Number is perfgate's one way to show a measured number: whole from 1000
// up (bytes per request, nanoseconds), otherwise four significant digits
// without an exponent, so 0.0025 GC cycles per request do not print as 0
// or 2.5e-03.
func Number(v float64) string {
	if math.Abs(v) >= 1000 || v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v))))
	s := strconv.FormatFloat(v, 'f', min(max(digits, 0), 15), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Signed is Number with its sign: "+11.03", "-2".
func Signed(v float64) string {
	if v >= 0 {
		return "+" + Number(v)
	}
	return Number(v)
}

// PValue shows a p-value to three significant digits: "0.0039", "0.432", "1".
func PValue(p float64) string { return fmt.Sprintf("%.3g", p) }

// Percent shows a level like 0.9805 as "98.05%".
func Percent(v float64) string { return fmt.Sprintf("%.4g%%", 100*v) }

// binaryBytes shows bytes in unit (B, B/req, B/1k req) with the largest
// binary prefix that keeps the number at 1 or more: "48 KiB/1k req".
func binaryBytes(v float64, unit string) string {
	size, prefix := binaryPrefix(math.Abs(v))
	return Number(v/size) + " " + prefix + unit
}

// binaryPrefix is the largest power of 1024 not above v, and its prefix.
func binaryPrefix(v float64) (float64, string) {
	size := 1.0
	for _, prefix := range []string{"", "Ki", "Mi", "Gi"} {
		if v < 1024*size {
			return size, prefix
		}
		size *= 1024
	}
	return size, "Ti"
}

// Line is one value in the benchmark format: "41500 cpu-ns/req".
func (b *Bench) Line(v float64) string {
	return strconv.FormatFloat(v*b.Factor, 'f', b.Digits, 64) + " " + b.Unit
}
