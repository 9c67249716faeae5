package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestPadGrowsTheTextSectionToTheTarget: padding a real build by 100 KB
// grows its text section by that to within 1%, adds its
// functions only through the overlay (the tree is not written), leaves
// what the program does unchanged, and every relink with a layout of its
// own keeps the padding.
func TestPadGrowsTheTextSectionToTheTarget(t *testing.T) {
	ctx := context.Background()
	dir := serviceWithManyFunctions(t)
	work := t.TempDir()
	built, err := Build(ctx, "base", dir, ".", report.ServiceBuild{}, filepath.Join(work, "base"))
	if err != nil {
		t.Fatal(err)
	}
	if built.TextBytes == 0 {
		t.Fatal("Build recorded no text size")
	}
	const missing = 100_000
	p, err := Pad(ctx, PadRequest{Label: "base", Tree: dir, Package: ".", Unpadded: built.TextBytes, Missing: missing}, work)
	if err != nil {
		t.Fatal(err)
	}
	perFunction := float64(p.Bytes) / float64(p.Functions)
	if perFunction < 16 || perFunction > 2048 {
		t.Fatalf("padding of %d functions grew the text by %d bytes: %.0f per function", p.Functions, p.Bytes, perFunction)
	}
	if gap := float64(p.Bytes) - missing; gap > 0.01*missing || -gap > 0.01*missing {
		t.Errorf("padding grew the text by %d bytes, want %d to within 1%%", p.Bytes, missing)
	}
	if _, err := os.Stat(filepath.Join(dir, PaddingFile)); !os.IsNotExist(err) {
		t.Errorf("the padding was written into the tree (%v): it belongs in the overlay only", err)
	}
	if left, _ := filepath.Glob(filepath.Join(work, "base.padded-*")); len(left) > 0 {
		t.Errorf("the padded builds %v were left behind once measured", left)
	}
	for _, seed := range []uint64{11, 12} {
		bin := filepath.Join(work, "relinked")
		if err := Layout(ctx, "base", dir, ".", report.ServiceBuild{}, LayoutDraw{Seed: seed}, p, bin); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(run(t, "", bin)); got != "194" {
			t.Fatalf("the padded relink printed %q: padding changed what the program does", got)
		}
		text, err := TextBytes(bin)
		if err != nil {
			t.Fatal(err)
		}
		// -randlayout moves functions, not bytes: alignment between them
		// changes the size by a little.
		if grown := float64(text) - float64(built.TextBytes); grown < 0.95*float64(p.Bytes) || grown > 1.05*float64(p.Bytes) {
			t.Errorf("relink with seed %d: text %d bytes, %.0f more than the build's; want the padding's %d", seed, text, grown, p.Bytes)
		}
		if order := symbolOrder(t, bin); strings.Count(order, "main.perfgatePadding") != p.Functions {
			t.Errorf("relink with seed %d holds %d padding functions, want %d", seed, strings.Count(order, "main.perfgatePadding"), p.Functions)
		}
	}
}

// TestPadRefusesACustomBuildCommand: a binary perfgate does not build
// cannot be padded.
func TestPadRefusesACustomBuildCommand(t *testing.T) {
	_, err := Pad(context.Background(), PadRequest{Label: "head", Tree: t.TempDir(), Package: ".", How: report.ServiceBuild{Command: []string{"make"}}, Unpadded: 1, Missing: 1 << 20}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "layout: build") {
		t.Errorf("Pad with a build command: %v, want an error that points to layout: build", err)
	}
}

// TestTextBytesRefusesANonBinary: a file that is no executable has no text
// size, and the error says which file.
func TestTextBytesRefusesANonBinary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	write(t, path, "not a program")
	if _, err := TextBytes(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("TextBytes of a text file: %v, want an error naming it", err)
	}
}
