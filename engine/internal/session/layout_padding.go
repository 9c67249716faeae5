package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// paddingThreshold is the smallest difference of text sections worth
// padding: under layout: random the example service's CPU per request
// grew by 0.4% to 1.9% for 670 KB more code (docs/benchmarks.md, "Layout
// padding"), so 16 KiB is at most a few hundredths of a percent, below
// anything a gate resolves, and not worth two more builds.
const paddingThreshold = 16 << 10

// padLayouts pads the side whose binary has the smaller text section with
// never-run code (build.Pad) so that layout: random relinks both sides at
// the same section size, and records it in the report. It returns the
// padding by side; on a failure it warns and pads nothing, as the gates
// before padding ran.
func (g *invocation) padLayouts(ctx context.Context) map[string]build.Padding {
	sides := map[string]*report.Binary{experiment.Base: &g.rep.Build.Base, experiment.Head: &g.rep.Build.Head}
	small, large := experiment.Base, experiment.Head
	if sides[small].TextBytes > sides[large].TextBytes {
		small, large = large, small
	}
	from, to := sides[small].TextBytes, sides[large].TextBytes
	if from == 0 || to-from < paddingThreshold {
		return nil
	}
	var padding build.Padding
	err := g.group(fmt.Sprintf("perfgate: pad %s's layouts to %s's text size", small, large), func() error {
		var err error
		padding, err = build.Pad(ctx, small, g.sources[small], g.cfg.Service.Package, g.cfg.Service.Build, from, to-from, filepath.Dir(sides[small].Path))
		if err == nil {
			fmt.Fprintf(g.stdout, "perfgate: %s's code is %s, %s's %s: each round's relink of %s adds %d never-run functions (%s), so that layout: random scatters both sides' hot code as thinly\n",
				large, kilobytes(to), small, kilobytes(from), small, padding.Functions, kilobytes(padding.Bytes))
		}
		return err
	})
	if err != nil {
		g.warn(fmt.Sprintf("could not pad %s's binary to %s's text size (%v): %s's %s of code more than %s's may slow its hot path under layout: random by itself (docs/benchmarks.md, \"Layout padding\")",
			small, large, err, large, kilobytes(to-from), small))
		return nil
	}
	if padding.Functions == 0 {
		return nil
	}
	sides[small].LayoutPadding = &padding.LayoutPadding
	return map[string]build.Padding{small: padding}
}

// kilobytes is n bytes in KB (1000 bytes), as binary sizes are quoted.
func kilobytes(n uint64) string {
	return fmt.Sprintf("%.0f KB", float64(n)/1000)
}
