// Command diagnosis is the diagnosis benchmark's judge (scripts/
// diagnosis.sh, docs/benchmarks.md "Diagnosis"): which functions a planted
// regression's patch changed, and whether each gate's report named them.
//
//	go run ./tools/diagnosis planted -patch P -tree HEAD   # JSON places
//	go run ./tools/diagnosis table DIR                      # Markdown
//	go run ./tools/diagnosis slope DIR                      # the leak metrics' halves
//
// DIR holds one directory per gate, <plant>-<i>, each with report.json,
// planted.json (from planted) and gate.json (exit code, wall seconds).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "diagnosis:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: diagnosis planted -patch P -tree DIR | diagnosis table DIR | diagnosis slope DIR")
	}
	switch args[0] {
	case "planted":
		fs := flag.NewFlagSet("planted", flag.ContinueOnError)
		patch := fs.String("patch", "", "the plant's patch")
		tree := fs.String("tree", "", "the head tree the patch was applied to")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		places, err := Planted(*patch, *tree)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", " ")
		return enc.Encode(places)
	case "table":
		if len(args) != 2 {
			return fmt.Errorf("usage: diagnosis table DIR")
		}
		gates, err := readGates(args[1])
		if err != nil {
			return err
		}
		_, err = io.WriteString(out, Table(gates))
		return err
	case "slope":
		if len(args) != 2 {
			return fmt.Errorf("usage: diagnosis slope DIR")
		}
		table, err := Slope(args[1])
		if err != nil {
			return err
		}
		_, err = io.WriteString(out, table)
		return err
	}
	return fmt.Errorf("unknown command %q: want planted, table or slope", args[0])
}
