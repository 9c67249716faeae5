package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// finish ends gate, run and compare: the error, the outcome and the exit
// code that says it.
func finish(stdout, stderr io.Writer, rep *report.Report, err error, out string) int {
	if err != nil {
		printError(stderr, err)
	}
	// Under sudo the results go back to the invoking user: a persistent
	// self-hosted runner deletes them in its next job as that user.
	if giveErr := privilege.GiveBack(out); giveErr != nil && !errors.Is(giveErr, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "perfgate: WARNING: giving %s back to the invoking user: %v\n", out, giveErr)
	}
	if rep == nil {
		return exitCode("", err)
	}
	render.Terminal(stdout, rep, out)
	return exitCode(rep.Verdict, err)
}
