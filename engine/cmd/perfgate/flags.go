package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/session"
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

// logFormatFlag is --log-format: plain for a terminal, github for log
// groups in a GitHub Actions step.
func logFormatFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "log-format", session.LogPlain, "plain (a terminal) or github (each build and the measurement in a log group of a GitHub Actions step)")
}

// checkLogFormat names a --log-format that is not one.
func checkLogFormat(command, format string, stderr io.Writer) bool {
	if format == session.LogPlain || format == session.LogGitHub {
		return true
	}
	fmt.Fprintf(stderr, "perfgate %s: --log-format %q is not a log format; use plain or github\n", command, format)
	return false
}
