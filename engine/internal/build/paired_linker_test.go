package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// textOrder is the binary's text symbols in address order.
func textOrder(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command("go", "tool", "nm", "-n", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "T" {
			names = append(names, f[2])
		}
	}
	return names
}

// sharedOrder is the symbols of order that other has too, in order's
// order.
func sharedOrder(order, other []string) []string {
	var shared []string
	for _, name := range order {
		if slices.Contains(other, name) {
			shared = append(shared, name)
		}
	}
	return shared
}

// TestPairedLinkerPlacesSharedFunctionsAlike: linked from one seed by
// the paired-layout linker, a program and the same program with one more
// function put every function they share in the same order, which the
// toolchain's shuffle does not; another seed draws another order; and
// the go build cache never hands one linker's link to the other.
func TestPairedLinkerPlacesSharedFunctionsAlike(t *testing.T) {
	ctx := context.Background()
	if !ReadLinkerAbilities(ctx).RandLayout {
		t.Fatal("this toolchain's linker has no -randlayout; perfgate's own CI must run one that has")
	}
	linker, err := PairedLinker(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	base, basePrints := serviceWithFunctions(t, names)
	head, headPrints := serviceWithFunctions(t, append(slices.Clone(names[:4]), append([]string{"added"}, names[4:]...)...))
	out := t.TempDir()
	link := func(name, dir, prints string, draw LayoutDraw) []string {
		path := filepath.Join(out, name)
		if err := Layout(ctx, name, dir, ".", report.ServiceBuild{}, draw, Padding{}, path); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(run(t, "", path)); got != prints {
			t.Fatalf("%s printed %q, want %s: relinking changed what the program does", name, got, prints)
		}
		return textOrder(t, path)
	}
	paired := LayoutDraw{Seed: 4242, Align: 64, Linker: linker}
	pairedBase := link("paired-base", base, basePrints, paired)
	pairedHead := link("paired-head", head, headPrints, paired)
	if a, b := sharedOrder(pairedBase, pairedHead), sharedOrder(pairedHead, pairedBase); !slices.Equal(a, b) {
		t.Errorf("the paired linker put the %d functions both programs share in two orders", len(a))
	}
	if len(pairedBase) < 1000 {
		t.Fatalf("%d text symbols: too few for the orders to tell", len(pairedBase))
	}

	stock := LayoutDraw{Seed: 4242, Align: 64}
	stockBase := link("stock-base", base, basePrints, stock)
	stockHead := link("stock-head", head, headPrints, stock)
	if slices.Equal(sharedOrder(stockBase, stockHead), sharedOrder(stockHead, stockBase)) {
		t.Error("the toolchain's -randlayout put the shared functions of two programs in one order: perfgate's paired linker would not be needed, see PairedLinker")
	}
	// The same seed and flags through the other linker: the build cache
	// must link again, not return the paired linker's binary.
	if slices.Equal(stockBase, pairedBase) {
		t.Error("the toolchain's linker and the paired one linked one order from one seed: the cache confused their links, or the patch did nothing")
	}
	if again := link("paired-again", base, basePrints, paired); !slices.Equal(again, pairedBase) {
		t.Error("the paired linker linked two orders from one seed: --seed could not replay a gate's layouts")
	}
	other := link("paired-other", base, basePrints, LayoutDraw{Seed: 4243, Align: 64, Linker: linker})
	if slices.Equal(other, pairedBase) {
		t.Error("seeds 4242 and 4243 gave the paired linker one order")
	}
	if _, err := os.Stat(linker); err != nil {
		t.Fatal(err)
	}
}
