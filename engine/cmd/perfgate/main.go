// Command perfgate gates a pull request on the performance of a Go HTTP
// service: it builds base and head, measures both under the same limits and
// load, and records everything in a results directory (or, with run, does
// the same for one tree alone).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

const usage = `perfgate gates pull requests on the performance of Go HTTP services.

Usage:
  perfgate gate --config perfgate.yml --base <git-rev> | --base-dir <dir> --head <dir> --out results/ [--seed N] [--history DIR]
  perfgate run --config perfgate.yml --src <dir> --label <name> --out results/ [--history DIR]   (one tree alone, e.g. nightly on main)
  perfgate trend --config perfgate.yml --src <dir> --history DIR --out trend/ [--confirm]   (steps in the nightly history, confirmed by paired gates)
  perfgate history add --history DIR --records FILE   (add history lines, e.g. results/history-entry.json)
  perfgate compare --out results/ [--config perfgate.yml]
  perfgate report --in results/report.json [--format md|html|json]
  perfgate config check perfgate.yml
  perfgate init [--dir DIR] [--write]   (read a Go module's source and write a commented perfgate.yml and the pull-request workflow)
  perfgate sweep [--config perfgate.yml]   (remove what killed perfgate runs of this host left: cgroups, containers, images, kind clusters, namespaces)

Exit codes: 0 pass, 1 regression (gate and compare only) or leftovers that
could not be removed (sweep), 2 usage or configuration error, 3 build or
infrastructure error, 4 invalid measurement.
`

func main() {
	// Under sudo, before anything else: the pull request's commands run as
	// the invoker must not become root through sudo's ticket.
	if err := privilege.RestartWithoutNewPrivileges(); err != nil {
		fmt.Fprintf(os.Stderr, "perfgate: %v\n", err)
		os.Exit(exitInfra)
	}
	os.Exit(runUntilSignalled(os.Args[1:], os.Stdout, os.Stderr))
}

// runUntilSignalled is run with signals handled: a first SIGINT/SIGTERM
// cancels the experiment, which stops the service, removes its cgroup and
// writes the results (trend: keeps the confirmations made); a second one
// kills perfgate at once.
func runUntilSignalled(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	return run(ctx, args, stdout, stderr)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitConfig
	}
	switch args[0] {
	case "gate":
		return gateCommand(ctx, args[1:], stdout, stderr)
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr)
	case "compare":
		return compareCommand(args[1:], stdout, stderr)
	case "report":
		return reportCommand(args[1:], stdout, stderr)
	case "sweep":
		return sweepCommand(ctx, args[1:], stdout, stderr)
	case "trend":
		return trendCommand(ctx, args[1:], stdout, stderr)
	case "history":
		return historyCommand(args[1:], stdout, stderr)
	case "config":
		if len(args) != 3 || args[1] != "check" {
			fmt.Fprint(stderr, "usage: perfgate config check perfgate.yml\n")
			return exitConfig
		}
		return configCheck(args[2], stdout, stderr)
	case "init":
		return initCommand(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "perfgate: unknown command %q\n\n%s", args[0], usage)
	return exitConfig
}
