package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// artifactOptions are the flags naming the CI artifact that holds a
// recording's raw profiles, kept in its history entry.
type artifactOptions struct {
	name  string
	id    int64
	runID int64
	url   string
}

func artifactFlags(fs *flag.FlagSet) *artifactOptions {
	a := &artifactOptions{}
	fs.StringVar(&a.name, "artifact-name", "", "the CI artifact the results are uploaded as, kept in the history entry")
	fs.Int64Var(&a.id, "artifact-id", 0, "that artifact's numeric ID")
	fs.Int64Var(&a.runID, "run-id", 0, "the CI run's numeric ID")
	fs.StringVar(&a.url, "run-url", "", "the CI run's https:// URL")
	return a
}

// check validates the flags and returns the artifact (nil when none was
// named).
func (a *artifactOptions) check() (*history.Artifact, error) {
	switch {
	case a.name != "" && !history.IsArtifactName(a.name):
		return nil, fmt.Errorf("--artifact-name %q is not an artifact name; use letters, digits, '.', '_' and '-'", a.name)
	case a.id < 0:
		return nil, fmt.Errorf("--artifact-id %d is not an ID; pass the artifact's numeric ID", a.id)
	case a.runID < 0:
		return nil, fmt.Errorf("--run-id %d is not a run ID; pass the workflow run's numeric ID", a.runID)
	}
	if a.url != "" {
		if u, err := url.Parse(a.url); err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("--run-url %q is not an https:// URL; pass the run's page, e.g. https://github.com/owner/repo/actions/runs/123", a.url)
		}
	}
	if a.name == "" && a.id == 0 && a.runID == 0 && a.url == "" {
		return nil, nil
	}
	return &history.Artifact{Name: a.name, ID: a.id, RunID: a.runID, RunURL: a.url}, nil
}

// runnerImage names a GitHub-hosted runner's image from the variables
// its images set ("ubuntu24 20261117.1.0"); "" elsewhere.
func runnerImage() string {
	return strings.TrimSpace(os.Getenv("ImageOS") + " " + os.Getenv("ImageVersion"))
}

// giveBack returns a directory perfgate wrote under sudo to the invoking
// user, warning when it cannot.
func giveBack(dir string, stderr io.Writer) {
	if err := privilege.GiveBack(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "perfgate: WARNING: giving %s back to the invoking user: %v\n", dir, err)
	}
}
