package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/gate"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// parseFlags parses a command's flags and refuses positional arguments,
// which every perfgate command would otherwise silently ignore.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

// targetFlag defines --target, the override of the config's target.
func targetFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "target", "", "where the service runs, overriding the config's target: "+strings.Join(config.Targets, ", "))
}

// checkTarget names a --target that is not one.
func checkTarget(command, target string, stderr io.Writer) bool {
	if target == "" || slices.Contains(config.Targets, target) {
		return true
	}
	fmt.Fprintf(stderr, "perfgate %s: --target %q is not a target; use one of %s\n", command, target, strings.Join(config.Targets, ", "))
	return false
}

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
		return gate.ExitCode("", err)
	}
	printOutcome(stdout, rep, out)
	return gate.ExitCode(rep.Verdict, err)
}
