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
		fmt.Fprintf(&src, "//go:noinline\nfunc extra%d(x int) int { for j := 0; j < x; j++ { x = x*%d ^ (x >> 3) + %d }; return x }\n\n", i, i+1<<20, 7*i+1<<20)
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

// TestPadLayoutsPadsTheSmallerSide: a head with about 50 KB more code
// makes base's relinks padded to head's text size, recorded in the
// report and said on the terminal; head is left as built.
func TestPadLayoutsPadsTheSmallerSide(t *testing.T) {
	g, stdout := gateWithTrees(t, programWithExtraCode(t, 0), programWithExtraCode(t, 250))
	base, head := g.rep.Build.Base.TextBytes, g.rep.Build.Head.TextBytes
	if head-base < paddingThreshold {
		t.Fatalf("head's text is only %d bytes larger than base's (%d): the fixture must exceed the threshold", head-base, base)
	}
	padding := g.padLayouts(context.Background())
	p, ok := padding[experiment.Base]
	if !ok || len(padding) != 1 {
		t.Fatalf("padding %+v, want base's alone (warnings %q)", padding, g.rep.Warnings)
	}
	if got := g.rep.Build.Base.LayoutPadding; got == nil || *got != p.LayoutPadding || g.rep.Build.Head.LayoutPadding != nil {
		t.Errorf("report: base padding %+v, head %+v; want base's %+v alone", got, g.rep.Build.Head.LayoutPadding, p.LayoutPadding)
	}
	if missing := float64(head - base); float64(p.Bytes) < 0.98*missing || float64(p.Bytes) > 1.02*missing {
		t.Errorf("padding of %d bytes for a difference of %.0f", p.Bytes, missing)
	}
	relinked := filepath.Join(t.TempDir(), "base")
	if err := build.Layout(context.Background(), experiment.Base, g.sources[experiment.Base], ".", g.cfg.Service.Build, 99, p, relinked); err != nil {
		t.Fatal(err)
	}
	if text, err := build.TextBytes(relinked); err != nil || float64(text) < 0.97*float64(head) || float64(text) > 1.03*float64(head) {
		t.Errorf("base relinked with its padding: text %d bytes (%v), want about head's %d", text, err, head)
	}
	if want := fmt.Sprintf("each round's relink of base adds %d never-run functions", p.Functions); !strings.Contains(stdout.String(), want) {
		t.Errorf("terminal:\n%s\nwant it to say %q", stdout, want)
	}
}

// TestPadLayoutsLeavesSidesOfOneSizeAlone: the same program on both sides
// needs no padding and builds nothing more.
func TestPadLayoutsLeavesSidesOfOneSizeAlone(t *testing.T) {
	tree := programWithExtraCode(t, 3)
	g, _ := gateWithTrees(t, tree, tree)
	if padding := g.padLayouts(context.Background()); padding != nil || g.rep.Build.Base.LayoutPadding != nil {
		t.Errorf("padding %+v for two builds of one tree", padding)
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
