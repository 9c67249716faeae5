package main

import (
	"cmp"
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
	var links render.Links
	fs.StringVar(&links.Repository, "repository", "", "owner/name, for the comment's links (the Action passes it)")
	fs.StringVar(&links.ServerURL, "server-url", "https://github.com", "GitHub's address, for the comment's links")
	fs.StringVar(&links.RunID, "run-id", "", "the workflow run that measured, linked from the comment")
	fs.StringVar(&links.RunAttempt, "run-attempt", "", "the run's attempt")
	fs.StringVar(&links.ArtifactID, "artifact-id", "", "the results artifact's ID, linked from the comment")
	fs.StringVar(&links.ReportArtifactID, "report-artifact-id", "", "the ID of the artifact holding report.html unzipped, linked from the comment as the page itself")
	fs.StringVar(&links.ArtifactName, "artifact-name", "", "the results artifact's name, for the comment's `gh run download` command")
	fs.StringVar(&links.BaseSHA, "base-sha", "", "the base commit, for the compare link (default: the report's own, unless --reproduce-* is given)")
	fs.StringVar(&links.HeadSHA, "head-sha", "", "the head commit, for the compare and source links (default: as --base-sha)")
	fs.StringVar(&links.AcceptLabel, "accept-label", "", "the pull request label that accepts a regression, named in the comment's next steps")
	accepted := fs.String("accepted-label", "", "the accepting label when the pull request carries it (with --accepted-by)")
	fs.StringVar(&links.AcceptedBy, "accepted-by", "", "the login that added --accepted-label: the comment says the regression was accepted")
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
	} else {
		// A report written here may lend its own commits to the links;
		// each still has to be a full commit hash to be used.
		links.BaseSHA = cmp.Or(links.BaseSHA, rep.Build.Base.Revision)
		links.HeadSHA = cmp.Or(links.HeadSHA, rep.Build.Head.Revision)
	}
	if *accepted != "" {
		if links.AcceptLabel != "" && links.AcceptLabel != *accepted {
			fmt.Fprintf(stderr, "perfgate report: --accepted-label %q differs from --accept-label %q; pass the same label, or only --accepted-label\n", *accepted, links.AcceptLabel)
			return exitConfig
		}
		links.AcceptLabel = *accepted
	}
	if (*accepted == "") != (links.AcceptedBy == "") {
		fmt.Fprintln(stderr, "perfgate report: --accepted-label and --accepted-by go together: the label on the pull request and the login that added it")
		return exitConfig
	}
	fmt.Fprint(stdout, render.MarkdownFor(rep, repro, links))
	return 0
}
