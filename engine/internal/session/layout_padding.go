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
// padding: under layout: random 670 KB more code cost the example service
// about 0.5% CPU per request (docs/benchmarks.md, "Layout padding"), so
// 16 KiB is about a hundredth of a percent, below anything a gate
// resolves, and not worth two more builds.
const paddingThreshold = 16 << 10

// padLayouts pads the side whose binary has the smaller text section with
// never-run code (build.Pad) so that layout: random relinks both sides at
// the same section size, and records it in the report. It returns the
// padding by side; when padding cannot be done it warns and pads nothing,
// as gates ran before padding.
func (g *invocation) padLayouts(ctx context.Context) map[string]build.Padding {
	sides := map[string]*report.Binary{experiment.Base: &g.rep.Build.Base, experiment.Head: &g.rep.Build.Head}
	small, large := experiment.Base, experiment.Head
	if sides[small].TextBytes > sides[large].TextBytes {
		small, large = large, small
	}
	from, to := sides[small].TextBytes, sides[large].TextBytes
	if from == 0 {
		g.warn(fmt.Sprintf("could not read the size of %s's code, so layout: random relinks both sides unpadded: if one has much more code than the other, even code that never runs, the shuffle alone may slow its hot path by a few tenths of a percent (docs/benchmarks.md, \"Layout padding\"); layout: build avoids it", small))
		return nil
	}
	if to-from < paddingThreshold {
		return nil
	}
	var padding build.Padding
	err := g.group(fmt.Sprintf("perfgate: pad %s's layouts to %s's text size", small, large), func() error {
		var err error
		padding, err = build.Pad(ctx, build.PadRequest{Label: small, Tree: g.sources[small], Package: g.cfg.Service.Package, How: g.cfg.Service.Build, Unpadded: from, Missing: to - from},
			filepath.Dir(sides[small].Path))
		if err == nil && padding.Functions > 0 {
			fmt.Fprintf(g.stdout, "perfgate: %s's code is %s, %s's %s: each round's relink of %s adds %d never-run functions (%s), so that layout: random scatters both sides' hot code as thinly\n",
				large, kilobytes(to), small, kilobytes(from), small, padding.Functions, kilobytes(padding.Bytes))
		}
		return err
	})
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		g.warn(fmt.Sprintf("%s has %s more code than %s, and padding %s to the same size failed, so layout: random relinks both unpadded: the shuffle alone may slow %s's hot path by a few tenths of a percent (docs/benchmarks.md, \"Layout padding\"); fix what the error says, or use layout: build. The error: %v",
			large, kilobytes(to-from), small, small, large, err))
		return nil
	}
	if padding.Functions == 0 {
		return nil
	}
	if padding.Functions == build.PaddingMaxFunctions {
		g.warn(fmt.Sprintf("%s has %s more code than %s; padding %s stopped at %d never-run functions (%s), so the shuffle of layout: random may still slow %s's hot path a little (docs/benchmarks.md, \"Layout padding\")",
			large, kilobytes(to-from), small, small, padding.Functions, kilobytes(padding.Bytes), large))
	}
	sides[small].LayoutPadding = &padding.LayoutPadding
	return map[string]build.Padding{small: padding}
}

// kilobytes is n bytes in KB (1000 bytes), as binary sizes are quoted.
func kilobytes(n uint64) string {
	return fmt.Sprintf("%.0f KB", float64(n)/1000)
}
