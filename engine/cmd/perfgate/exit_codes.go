package main

import (
	"errors"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/session"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Exit codes of the perfgate command: a stable contract that the usage
// text, the README and the Action rely on.
const (
	exitPass         = 0 // pass, improvement or inconclusive
	exitRegression   = 1
	exitConfig       = 2 // usage or configuration error
	exitInfra        = 3 // build or infrastructure error
	exitInvalid      = 4 // invalid measurement
	exitUnclassified = exitInfra

	// perfgate sweep: something it tried to remove is still there.
	exitSweepLeftovers = 1
)

// exitCode maps the verdict and error a gate, run or compare ended with
// to the command's exit code. A configuration error always wins; a pass
// with any other error is not a pass.
func exitCode(verdict string, err error) int {
	var ce *session.ConfigError
	var tce *target.ConfigError
	if errors.As(err, &ce) || errors.As(err, &tce) {
		return exitConfig
	}
	switch verdict {
	case report.Pass, report.Improvement, report.Inconclusive:
		if err == nil {
			return exitPass
		}
	case report.Regression:
		return exitRegression
	case report.Invalid:
		return exitInvalid
	}
	return exitUnclassified
}
