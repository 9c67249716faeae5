package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/build"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// programWithExtraCode is a module whose main package prints 1 and holds
// extra functions of about 200 bytes each that run only for an argument
// no one passes.
func programWithExtraCode(t *testing.T, extra int) string {
	t.Helper()
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\n")
	for i := range extra {
		fmt.Fprintf(&src, "//go:noinline\nfunc extra%d(x int) int { for j := 0; j < x; j++ { x = x*%d ^ (x >> 3) + %d }; return x }\n\n", i, 1<<20+i, 1<<20+7*i)
	}
	src.WriteString("func main() {\n\tif len(os.Args) > 1<<20 {\n")
	for i := range extra {
		fmt.Fprintf(&src, "\t\tfmt.Println(extra%d(len(os.Args)))\n", i)
	}
	src.WriteString("\t}\n\tfmt.Println(1)\n}\n")
	for name, text := range map[string]string{"go.mod": "module example.com/padding\n\ngo 1.24\n", "main.go": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gateWithTrees is an invocation whose two sides are built from the trees
// given, as measure finds them before it relinks.
func gateWithTrees(t *testing.T, base, head string) (*invocation, *bytes.Buffer) {
	t.Helper()
	cfg := config.Default()
	cfg.Service.Package = "."
	var stdout bytes.Buffer
	g := newInvocation(report.ModeGate, cfg, t.TempDir(), []string{"perfgate", "gate"}, &stdout, io.Discard)
	g.sources = map[string]string{experiment.Base: base, experiment.Head: head}
	bin := t.TempDir()
	for side, b := range map[string]*report.Binary{experiment.Base: &g.rep.Build.Base, experiment.Head: &g.rep.Build.Head} {
		built, err := build.Build(context.Background(), side, g.sources[side], ".", cfg.Service.Build, filepath.Join(bin, side))
		if err != nil {
			t.Fatal(err)
		}
		*b = built
	}
	return g, &stdout
}

// TestPadLayoutsPadsTheSmallerSide: a side with about 50 KB more code
// makes the other side's relinks padded to its text size, recorded in the
// report and said on the terminal, whichever side is the smaller; every
// relink layouts hands the experiment then has about one size.
func TestPadLayoutsPadsTheSmallerSide(t *testing.T) {
	for _, c := range []struct {
		small, large string
		base, head   int // extra functions
	}{
		{experiment.Base, experiment.Head, 0, 250},
		{experiment.Head, experiment.Base, 250, 0},
	} {
		t.Run(c.small+" smaller", func(t *testing.T) {
			g, stdout := gateWithTrees(t, programWithExtraCode(t, c.base), programWithExtraCode(t, c.head))
			sides := map[string]*report.Binary{experiment.Base: &g.rep.Build.Base, experiment.Head: &g.rep.Build.Head}
			from, to := sides[c.small].TextBytes, sides[c.large].TextBytes
			if to < from+paddingThreshold {
				t.Fatalf("%s's text is %d bytes, %s's %d: the fixture must differ by more than the threshold", c.large, to, c.small, from)
			}
			g.cfg.LayoutPairing = "paired"
			relink := g.layouts(context.Background(), t.TempDir())
			if relink == nil {
				t.Fatal("no relinks: this toolchain's linker has no -randlayout")
			}
			// Padded and paired at once: the paired-layout linker links
			// the padding too.
			if got := g.rep.Build.Base.LayoutPairing + " " + g.rep.Build.Head.LayoutPairing; got != "paired paired" {
				t.Fatalf("report: layout pairing %q, want paired on both sides (warnings %q)", got, g.rep.Warnings)
			}
			padding := sides[c.small].LayoutPadding
			if padding == nil || sides[c.large].LayoutPadding != nil {
				t.Fatalf("report: %s padding %+v, %s %+v; want %s's alone (warnings %q)", c.small, padding, c.large, sides[c.large].LayoutPadding, c.small, g.rep.Warnings)
			}
			if missing := float64(to - from); float64(padding.Bytes) < 0.98*missing || float64(padding.Bytes) > 1.02*missing {
				t.Errorf("padding of %d bytes for a difference of %.0f", padding.Bytes, missing)
			}
			// The relinks align every function (layout_align), which grows
			// both sides' sections past the builds' by a few percent; what
			// padding must give is one size for both.
			relinked := map[string]uint64{}
			for _, side := range []string{experiment.Base, experiment.Head} {
				bin := filepath.Join(t.TempDir(), side)
				if err := relink(context.Background(), experiment.LayoutRequest{Side: side, Seed: 99, Paired: true, Dst: bin}); err != nil {
					t.Fatal(err)
				}
				text, err := build.TextBytes(bin)
				if err != nil || text < to {
					t.Fatalf("%s relinked: text %d bytes (%v), want at least %s's build's %d", side, text, err, c.large, to)
				}
				relinked[side] = text
			}
			if b, h := float64(relinked[experiment.Base]), float64(relinked[experiment.Head]); b < 0.99*h || b > 1.01*h {
				t.Errorf("relinked text: base %.0f bytes, head %.0f: padding should give both about one size", b, h)
			}
			if g.rep.Build.Base.LayoutAlign != 64 || g.rep.Build.Head.LayoutAlign != 64 {
				t.Errorf("report: layout_align base %d, head %d; want the default 64 recorded for both", g.rep.Build.Base.LayoutAlign, g.rep.Build.Head.LayoutAlign)
			}
			if want := fmt.Sprintf("each round's relink of %s adds %d never-run functions", c.small, padding.Functions); !strings.Contains(stdout.String(), want) {
				t.Errorf("terminal:\n%s\nwant it to say %q", stdout, want)
			}
		})
	}
}

// TestPadLayoutsLeavesSmallDifferencesAlone: a head a few KB larger than
// base, below paddingThreshold, is relinked unpadded, and nothing is built
// for it.
func TestPadLayoutsLeavesSmallDifferencesAlone(t *testing.T) {
	g, _ := gateWithTrees(t, programWithExtraCode(t, 0), programWithExtraCode(t, 10))
	base, head := g.rep.Build.Base.TextBytes, g.rep.Build.Head.TextBytes
	if head <= base || head-base >= paddingThreshold {
		t.Fatalf("head's text %d bytes, base's %d: the fixture must differ, by less than the threshold", head, base)
	}
	if padding := g.padLayouts(context.Background()); padding != nil || g.rep.Build.Base.LayoutPadding != nil {
		t.Errorf("padding %+v for %d bytes of difference", padding, head-base)
	}
	if built, _ := filepath.Glob(filepath.Join(filepath.Dir(g.rep.Build.Base.Path), "padding-*")); len(built) > 0 {
		t.Errorf("padding sources %v written for a difference below the threshold", built)
	}
}

// TestPadLayoutsWarnsWhenThePaddingFileIsTaken: a service file with the
// padding's name is never replaced; the gate warns and runs unpadded.
func TestPadLayoutsWarnsWhenThePaddingFileIsTaken(t *testing.T) {
	base := programWithExtraCode(t, 0)
	if err := os.WriteFile(filepath.Join(base, build.PaddingFile), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _ := gateWithTrees(t, base, programWithExtraCode(t, 250))
	if padding := g.padLayouts(context.Background()); padding != nil {
		t.Errorf("padding %+v over the service's own %s", padding, build.PaddingFile)
	}
	if len(g.rep.Warnings) != 1 || !strings.Contains(g.rep.Warnings[0], build.PaddingFile+" exists") || !strings.Contains(g.rep.Warnings[0], "Layout padding") {
		t.Errorf("warnings %q, want one that names the file and the docs", g.rep.Warnings)
	}
}
