package gate

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Exit codes of the perfgate command (a stable contract, see README).
const (
	ExitPass         = 0 // pass, improvement or inconclusive
	ExitRegression   = 1
	ExitConfig       = 2 // usage or configuration error
	ExitInfra        = 3 // build or infrastructure error
	ExitInvalid      = 4 // invalid measurement
	exitUnclassified = ExitInfra
)

// ConfigError is bad input: flags, perfgate.yml, --base that does not resolve.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// configErrorf builds a ConfigError from a message that names the field,
// the value and the fix.
func configErrorf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// ExitCode maps a gate's verdict and error to the command's exit code.
func ExitCode(verdict string, err error) int {
	var ce *ConfigError
	var tce *target.ConfigError
	if errors.As(err, &ce) || errors.As(err, &tce) {
		return ExitConfig
	}
	switch verdict {
	case report.Pass, report.Improvement, report.Inconclusive:
		if err == nil {
			return ExitPass
		}
	case report.Regression:
		return ExitRegression
	case report.Invalid:
		return ExitInvalid
	}
	return exitUnclassified
}
