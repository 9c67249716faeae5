package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/engine/internal/render"
)

// reportCommand (`perfgate report`) re-renders a report.json, which may come from an untrusted
// copy (the Action's fork-safe mode): it is checked before it is rendered.
func reportCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "results/report.json", "report.json to render")
	format := fs.String("format", "md", "md (the PR comment), html (the self-contained page) or json (the checked report)")
	reproduceConfig := fs.String("reproduce-config", "", "perfgate.yml's path for the comment's \"Reproduce locally\" command; with this flag or --reproduce-head, the command takes no value from the report")
	reproduceHead := fs.String("reproduce-head", "", "the measured commit, checked out first in the comment's \"Reproduce locally\" command")
	if err := fs.Parse(args); err != nil {
		return exitConfig
	}
	if *format != "md" && *format != "html" && *format != "json" {
		fmt.Fprintf(stderr, "perfgate report: --format %q is not supported; use md, html or json\n", *format)
		return exitConfig
	}
	f, err := os.Open(*in)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate report: %v\n", err)
		return exitConfig
	}
	defer f.Close()
	rep, err := render.ReadReport(f)
	if err != nil {
		fmt.Fprintf(stderr, "perfgate report: %s: %v\n", *in, err)
		return exitConfig
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "perfgate report: %v\n", err)
			return exitInfra
		}
		return 0
	}
	if *format == "html" {
		page, err := render.HTML(rep)
		if err != nil {
			fmt.Fprintf(stderr, "perfgate report: %v\n", err)
			return exitInfra
		}
		fmt.Fprint(stdout, page)
		return 0
	}
	// A copy from elsewhere gets its command from the caller: a hostile
	// report must not put a paste-me command line in a trusted comment.
	repro := render.ReproductionOf(rep)
	if *reproduceConfig != "" || *reproduceHead != "" {
		repro = render.Reproduction{Config: *reproduceConfig, Head: *reproduceHead}
	}
	fmt.Fprint(stdout, render.MarkdownWithReproduction(rep, repro))
	return 0
}
