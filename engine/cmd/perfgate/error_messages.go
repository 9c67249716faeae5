package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/session"
)

// printError prints each perfgate.yml problem on its own line (file:line:
// field: ...), and any other error as one message.
func printError(w io.Writer, err error) {
	problems := config.Errors(err)
	if len(problems) == 0 {
		fmt.Fprintf(w, "perfgate: %s\n", message(err))
		return
	}
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
}

// message is err as the command says it: an option gate refused is named
// by its flag, with what to pass instead. An OptionError wrapped with more
// context keeps gate's own words, so the context is not lost.
func message(err error) string {
	var oe *session.OptionError
	if !errors.As(err, &oe) || err.Error() != oe.Error() {
		return err.Error()
	}
	if format, ok := optionMessages[optionProblem{oe.Option, oe.Problem}]; ok {
		if oe.Problem == session.Missing {
			return format
		}
		return fmt.Sprintf(format, oe.Value)
	}
	return "--" + oe.Error()
}

type optionProblem struct {
	option  session.Option
	problem session.Problem
}

// optionMessages word each refusal of an option as its flag: the flag, the
// value (%q) and what to pass instead.
var optionMessages = map[optionProblem]string{
	{session.OptionHead, session.NotADirectory}: "--head %q is not a directory; pass the checkout of the pull request's head",
	{session.OptionSrc, session.NotADirectory}:  "--src %q is not a directory; pass the checkout of the service to measure",
	{session.OptionOut, session.NotResults}:     "--out %q exists and is not a perfgate results directory; pass a new or empty directory",
	{session.OptionOut, session.NoReport}:       "--out %q has no report.json; pass the results directory of a perfgate gate or run",
	{session.OptionLabel, session.Missing}:      "--label is required: name what is measured, e.g. --label main or --label $(git rev-parse --short HEAD)",
	{session.OptionLabel, session.NotALabel}:    "--label %q is not a valid label; use 1 to 100 letters, digits and . _ / - (a branch name like main or a short commit SHA)",
}
