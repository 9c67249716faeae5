package session

import (
	"fmt"
	"strings"
)

// Log formats of `perfgate gate|run --log-format`.
const (
	// LogPlain is for a terminal: nothing but perfgate's own lines.
	LogPlain = "plain"
	// LogGitHub folds each build and the measurement into a log group of
	// a GitHub Actions step (`::group::`/`::endgroup::` lines).
	LogGitHub = "github"
)

// group runs fn inside a log group titled title when the log format asks
// for groups; the title is perfgate's own words and a revision, with
// anything that could end the command line removed.
func (g *invocation) group(title string, fn func() error) error {
	if g.logFormat != LogGitHub {
		return fn()
	}
	fmt.Fprintf(g.stdout, "::group::%s\n", strings.NewReplacer("\r", " ", "\n", " ", "::", ":").Replace(title))
	defer fmt.Fprintln(g.stdout, "::endgroup::")
	return fn()
}
