package initconfig

import "fmt"

// workflowHeader replaces the example's opening comment.
const workflowHeader = `# perfgate on pull requests, written by ` + "`perfgate init`" + ` (the same as
# examples/workflows/pr-gate.yml of perfgate): measure base and head, fail
# the check on a regression, and keep one sticky comment up to date. Pull
# requests from forks get a read-only token, so perfgate cannot comment on
# them here (it says so and puts the report in the job summary); see
# pr-gate-fork-safe.yml and pr-comment.yml in perfgate's examples for those.
# A regression accepted on purpose (the perfgate:accept label on the pull
# request) passes the check, and the comment says who added the label.
`

// workflowBody is examples/workflows/pr-gate.yml after its opening comment;
// TestWorkflowIsTheExample keeps the two the same. %s are the setup-go
// go.mod path and the perfgate step's with: lines.
const workflowBody = `name: perfgate

on:
  pull_request:
    # labeled/unlabeled: adding or removing a label (the accept label,
    # perfgate:accept, or any other) decides again from the last gate of the
    # same head commit, without measuring (its results artifact, read with
    # actions: read; if there is none, it measures): a label cannot change a
    # measurement. Only a push measures again.
    types: [opened, synchronize, reopened, labeled, unlabeled]

# A new push to the pull request replaces the run for the old head.
concurrency:
  group: perfgate-${{ github.event.pull_request.number }}
  cancel-in-progress: true

permissions: {}

jobs:
  gate:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read        # check out the code
      pull-requests: write  # write the sticky comment; read the accept label and who added it
      actions: read         # on an accept-label change, find the last gate's results for the same commit instead of measuring again
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          fetch-depth: 0  # the merge base with the target branch is the baseline
          persist-credentials: false
      - uses: actions/setup-go@d35c59abb061a4a6fb18e82ac0862c26744d6ab5 # v5.5.0
        with:
          go-version-file: %s
      - uses: perfgate/perfgate@cb543430dcbb8756a6f43748575d5bba80075d41 # unreleased commit of main, not a release (docs/versioning.md)
        with:
          mode: gate
%s`

// WorkflowYAML is the pull-request workflow for a module at moduleDir
// (slash-separated, relative to the repository root; "." for the root).
func WorkflowYAML(moduleDir string) string {
	goMod, with := "go.mod", "          config: perfgate.yml\n"
	if moduleDir != "." {
		goMod = quote(moduleDir + "/go.mod")
		with = fmt.Sprintf("          config: %s\n          working-directory: %s\n", quote(moduleDir+"/perfgate.yml"), quote(moduleDir))
	}
	return workflowHeader + fmt.Sprintf(workflowBody, goMod, with)
}
