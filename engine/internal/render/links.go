package render

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Links are where a comment points its reader: the workflow run, the
// results artifact, the base…head compare view and, on the head commit,
// the source of a changed function. The caller (the Action) knows them; a
// report never supplies them, and each value is used only when it matches
// a pattern that cannot carry Markdown, HTML or a second URL. A value that
// does not match is left out, with whatever link needs it.
type Links struct {
	// ServerURL is GitHub's address, like https://github.com.
	ServerURL string
	// Repository is owner/name.
	Repository string
	// RunID and RunAttempt name the workflow run; ArtifactID and
	// ArtifactName its results artifact.
	RunID, RunAttempt, ArtifactID string
	ArtifactName                  string
	// ReportArtifactID is the artifact holding report.html alone,
	// uploaded unzipped: GitHub serves it as the page itself, one click
	// from the comment, where the service supports it.
	ReportArtifactID string
	// BaseSHA and HeadSHA are the compared commits.
	BaseSHA, HeadSHA string
	// AcceptLabel is the pull request label that accepts a regression;
	// AcceptedBy the login that added it, when it is on the pull request.
	AcceptLabel, AcceptedBy string
}

var (
	safeServerURL  = regexp.MustCompile(`^https://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$`)
	safeRepository = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)
	safeNumber     = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)
	// safeArtifact is stricter than GitHub's artifact names: the name is
	// pasted into a shell command.
	safeArtifact = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	safeCommit   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	// safeLogin is GitHub's login syntax, and the [bot] suffix of apps.
	safeLogin = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$`)
	// safeLabel keeps a label name short and on one line; it is shown
	// escaped, never linked.
	safeLabel = regexp.MustCompile(`^[^\x00-\x1f\x7f]{1,50}$`)
)

// Checked returns the links with every value that fails its pattern
// emptied.
func (l Links) Checked() Links {
	keep := func(pattern *regexp.Regexp, v string) string {
		if pattern.MatchString(v) {
			return v
		}
		return ""
	}
	c := Links{
		ServerURL:        strings.TrimSuffix(keep(safeServerURL, l.ServerURL), "/"),
		Repository:       keep(safeRepository, l.Repository),
		RunID:            keep(safeNumber, l.RunID),
		RunAttempt:       keep(safeNumber, l.RunAttempt),
		ArtifactID:       keep(safeNumber, l.ArtifactID),
		ReportArtifactID: keep(safeNumber, l.ReportArtifactID),
		ArtifactName:     keep(safeArtifact, l.ArtifactName),
		BaseSHA:          keep(safeCommit, l.BaseSHA),
		HeadSHA:          keep(safeCommit, l.HeadSHA),
		AcceptLabel:      keep(safeLabel, l.AcceptLabel),
		AcceptedBy:       keep(safeLogin, l.AcceptedBy),
	}
	if strings.Contains(c.Repository, "..") {
		c.Repository = ""
	}
	if c.AcceptLabel == "" {
		c.AcceptedBy = ""
	}
	return c
}

// repositoryURL is the repository's address, "" when unknown.
func (l Links) repositoryURL() string {
	if l.ServerURL == "" || l.Repository == "" {
		return ""
	}
	return l.ServerURL + "/" + l.Repository
}

// runURL is the workflow run (its attempt, when known).
func (l Links) runURL() string {
	repo := l.repositoryURL()
	if repo == "" || l.RunID == "" {
		return ""
	}
	u := repo + "/actions/runs/" + l.RunID
	if l.RunAttempt != "" && l.RunAttempt != "1" {
		u += "/attempts/" + l.RunAttempt
	}
	return u
}

// artifactURL downloads the results artifact directly.
func (l Links) artifactURL() string {
	repo := l.repositoryURL()
	if repo == "" || l.RunID == "" || l.ArtifactID == "" {
		return ""
	}
	return repo + "/actions/runs/" + l.RunID + "/artifacts/" + l.ArtifactID
}

// reportURL opens report.html, uploaded unzipped, in the browser.
func (l Links) reportURL() string {
	repo := l.repositoryURL()
	if repo == "" || l.RunID == "" || l.ReportArtifactID == "" {
		return ""
	}
	return repo + "/actions/runs/" + l.RunID + "/artifacts/" + l.ReportArtifactID
}

// compareURL is GitHub's base…head view.
func (l Links) compareURL() string {
	repo := l.repositoryURL()
	if repo == "" || l.BaseSHA == "" || l.HeadSHA == "" {
		return ""
	}
	return repo + "/compare/" + l.BaseSHA + "..." + l.HeadSHA
}

// sourceURL is a repository file's line at the head commit; path must
// already be a checked repository path.
func (l Links) sourceURL(path string, line int64) string {
	repo := l.repositoryURL()
	if repo == "" || l.HeadSHA == "" || path == "" {
		return ""
	}
	u := repo + "/blob/" + l.HeadSHA + "/" + path
	if line > 0 {
		u += "#L" + strconv.FormatInt(line, 10)
	}
	return u
}

// linksLine is the comment's one line of links, "" when it has none.
func (l Links) linksLine() string {
	var parts []string
	add := func(text, url string) {
		if url != "" {
			parts = append(parts, fmt.Sprintf("[%s](%s)", text, url))
		}
	}
	add("workflow run", l.runURL())
	add("report.html", l.reportURL())
	add("results artifact", l.artifactURL())
	add("base…head", l.compareURL())
	if len(parts) == 0 {
		return ""
	}
	switch {
	case l.artifactURL() != "" && l.reportURL() != "":
		parts = append(parts, "every profile is in the results artifact")
	case l.artifactURL() != "":
		parts = append(parts, "report.html and every profile are in the artifact")
	}
	return strings.Join(parts, " · ")
}

// downloadCommand fetches the artifact with GitHub's CLI, "" when the run
// or the artifact's name is unknown.
func (l Links) downloadCommand() string {
	if l.RunID == "" || l.ArtifactName == "" {
		return ""
	}
	repo := ""
	if l.Repository != "" {
		repo = " -R " + l.Repository
	}
	return fmt.Sprintf("gh run download %s%s -n %s -D %s", l.RunID, repo, l.ArtifactName, l.ArtifactName)
}

// repositoryPath maps a function's file, as a -trimpath binary records it
// (the main module's path, then the file's path in the module), to the
// file's path in the repository; "" for a function outside the main
// module (the standard library, a dependency) or a path that fails the
// pattern a link may carry.
func repositoryPath(head report.Binary, f report.Function) string {
	if head.Module == "" || f.File == "" {
		return ""
	}
	rest, ok := strings.CutPrefix(f.File, head.Module+"/")
	if !ok {
		return ""
	}
	p := path.Join(head.ModuleDir, rest)
	if !safeRelativePath(p) || !strings.HasSuffix(p, ".go") {
		return ""
	}
	return p
}
