package session

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/build"
)

// pairedLinker is the linker of the paired rounds of layout_pairing
// (paired, or alternate's odd rounds), built into dir
// (build.PairedLinker), and how the relinks pair each round's layouts as
// report.json records it: the config's pairing; or seed, with a warning,
// when the linker could not be built (both sides still take one seed per
// round, but the toolchain's shuffle places shared functions alike only
// when both sides have the same functions).
func (g *invocation) pairedLinker(ctx context.Context, dir string) (linker, pairing string) {
	pairing = g.cfg.LayoutPairing
	if pairing == "independent" {
		return "", pairing
	}
	linker, err := build.PairedLinker(ctx, dir)
	if err != nil {
		g.warn(fmt.Sprintf("could not build perfgate's paired-layout linker from this toolchain's source (%v), so layout_pairing: %s relinks base and head of a paired round from one seed with the toolchain's own linker, which places the functions they share alike only when both have the same functions: if this pull request adds or removes any, each round's CPU ratio carries both sides' layouts and spreads more (docs/benchmarks.md, \"Paired layouts\"); layout_pairing: independent says so outright", err, pairing))
		return "", "seed"
	}
	return linker, pairing
}
