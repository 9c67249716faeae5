package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/engine/internal/initconfig"
)

// initCommand (`perfgate init`) reads a Go module's source and prints, or
// with --write writes, a commented perfgate.yml and the pull-request
// workflow, then says what it could not infer and what to change in the
// service. It never overwrites a file.
func initCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "the Go module to inspect: the directory holding its go.mod")
	write := fs.Bool("write", false, "write perfgate.yml and .github/workflows/perfgate.yml instead of printing them; an existing file is never overwritten")
	if !parseFlags(fs, args, stderr) {
		return exitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "perfgate init: unexpected argument %q: give the module with --dir\n", fs.Arg(0))
		return exitConfig
	}
	result, err := initconfig.Generate(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate init: %v\n", err)
		return exitConfig
	}
	if *write {
		if err := initconfig.Write(result.Files); err != nil {
			fmt.Fprintf(stderr, "perfgate init: %v\n", err)
			var exists *initconfig.ExistsError
			if errors.As(err, &exists) {
				return exitConfig
			}
			return exitInfra
		}
		for _, f := range result.Files {
			fmt.Fprintf(stdout, "wrote %s\n", f.Path)
		}
	} else {
		for _, f := range result.Files {
			fmt.Fprintf(stdout, "# ---- %s (perfgate init --write writes it) ----\n%s\n", f.Path, f.Content)
		}
	}
	printInitTodo(stdout, result)
	return exitPass
}

// printInitTodo says what init could not infer, each as a change to make.
func printInitTodo(w io.Writer, result *initconfig.Result) {
	todo := result.Plan.Todo
	if result.NoRepository {
		todo = append(todo, fmt.Sprintf("no git repository was found at or above %s, so the workflow was put under it: move .github/workflows/perfgate.yml to the root of the repository and set its config, working-directory and go-version-file to the module's path from there", result.RepositoryRoot))
	}
	if len(todo) == 0 {
		fmt.Fprintln(w, "perfgate init inferred everything; check the file with: perfgate config check perfgate.yml")
		return
	}
	fmt.Fprintln(w, "What perfgate init could not infer, and what to change:")
	for _, t := range todo {
		fmt.Fprintf(w, "  - %s\n", t)
	}
	fmt.Fprintln(w, "Then check the file with: perfgate config check perfgate.yml")
}
