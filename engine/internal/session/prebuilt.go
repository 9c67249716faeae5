package session

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// Prebuilt binaries (perfgate gate --base-binary and --head-binary,
// perfgate run --binary) stand in for the build of a side: the trees
// still give the base's thresholds, the reset's directory and the
// comment's source links.

// checkPrebuilt refuses prebuilt binaries that cannot be measured as
// asked, before anything is built: ones that are not executable files, and,
// when the experiment relinks (a comparison), any with layout: random,
// which relinks each side per round and cannot relink a binary it did not
// build. byFlag maps each flag to its path ("" when not given).
func checkPrebuilt(cfg *config.Config, byFlag map[string]string, relinks bool) error {
	var given []string
	for flag, path := range byFlag {
		if path == "" {
			continue
		}
		given = append(given, flag)
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			return configErrorf("%s %s is not an executable file; give the service's binary, built with go build", flag, path)
		}
	}
	slices.Sort(given)
	if len(given) > 0 && relinks && cfg.Layout == "random" {
		return configErrorf("%s: a prebuilt binary cannot be relinked with a layout of its own per round, which layout: random (perfgate.yml's default) needs; write layout: build in perfgate.yml to measure the binaries with their builds' layouts (a layout bias of about ±0.6%% CPU per request is then not averaged out: docs/services.md), or let perfgate build the trees", strings.Join(given, " and "))
	}
	return nil
}

// prebuiltWarning is the report's note that a side's binary came from a
// flag rather than from its tree, and that service.build did not apply.
func prebuiltWarning(cfg *config.Config, side, flag, path string) string {
	w := fmt.Sprintf("%s ran the binary given with %s (%s), not a build of its tree: perfgate cannot tell whether it was built from that tree", side, flag, path)
	if b := cfg.Service.Build; len(b.Tags) > 0 || b.LDFlags != "" || b.CGO || len(b.Command) > 0 {
		w += "; service.build did not apply to it"
	}
	return w
}
