package config

import (
	"errors"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// The units of perfgate.yml are report.json's: the effective configuration
// is echoed there, so the text form of each quantity (what it accepts, how
// it is written back) is defined once, in package report.
type (
	CPU      = report.CPU
	Bytes    = report.Bytes
	Duration = report.Duration
	Fraction = report.Fraction
)

// What each unit accepts, said the same way in every message.
const (
	cpuWant      = report.CPUWant
	bytesWant    = report.BytesWant
	durationWant = report.DurationWant
	fractionWant = report.FractionWant
)

// ParseCPU reads cores ("2", "0.5") or millicores ("500m"); see
// report.ParseCPU. Its error is an *Error.
func ParseCPU(s string) (CPU, error) {
	v, err := report.ParseCPU(s)
	return v, unitError(err)
}

// ParseBytes reads a quantity such as 256Mi, 1.5Gi, 100M or 1048576; see
// report.ParseBytes. Its error is an *Error.
func ParseBytes(s string) (Bytes, error) {
	v, err := report.ParseBytes(s)
	return v, unitError(err)
}

// ParseDuration reads a Go duration such as 3s, 500ms or 1m30s. Its error
// is an *Error.
func ParseDuration(s string) (Duration, error) {
	v, err := report.ParseDuration(s)
	return v, unitError(err)
}

// ParseFraction reads "10%" as 0.1 and "0.1" as 0.1; see
// report.ParseFraction. Its error is an *Error.
func ParseFraction(s string) (Fraction, error) {
	v, err := report.ParseFraction(s)
	return v, unitError(err)
}

// unitError turns a *report.UnitError into an *Error, which the
// diagnostics locate in the file.
func unitError(err error) error {
	var u *report.UnitError
	if !errors.As(err, &u) {
		return err
	}
	return &Error{Value: u.Value, Problem: u.Problem, Want: u.Want, Hint: u.Hint}
}
