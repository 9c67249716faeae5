package build

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// serviceWithManyFunctions is a module whose main package has enough
// functions for a shuffle of their order to show; it prints 194.
func serviceWithManyFunctions(t *testing.T) string {
	t.Helper()
	dir, _ := serviceWithFunctions(t, []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"})
	return dir
}

// serviceWithFunctions is a module whose main package has a function per
// name, each called once; it returns the module and what it prints.
func serviceWithFunctions(t *testing.T, names []string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/layout\n\ngo 1.24\n")
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	var calls []string
	sum := 0
	for i, name := range names {
		src.WriteString("//go:noinline\nfunc " + name + "(n int) int { return n*len(\"" + name + "\") + 1 }\n\n")
		calls = append(calls, name+"("+strconv.Itoa(i+1)+")")
		sum += (i+1)*len(name) + 1
	}
	src.WriteString("func main() { fmt.Println(" + strings.Join(calls, " + ") + ") }\n")
	write(t, filepath.Join(dir, "main.go"), src.String())
	return dir, strconv.Itoa(sum)
}

// symbolOrder is the program's main.* functions in address order.
func symbolOrder(t *testing.T, bin string) string {
	t.Helper()
	var names []string
	for _, name := range textOrder(t, bin) {
		if strings.HasPrefix(name, "main.") {
			names = append(names, name)
		}
	}
	return strings.Join(names, " ")
}

// TestLayoutDrawsAFunctionOrderPerSeed: a layout is the same program with
// its functions in another order; the same seed links the same bytes
// (--seed replays a gate's layouts), another seed another order.
func TestLayoutDrawsAFunctionOrderPerSeed(t *testing.T) {
	ctx := context.Background()
	if !ReadLinkerAbilities(ctx).RandLayout {
		t.Fatal("this toolchain's linker has no -randlayout; perfgate's own CI must run one that has")
	}
	dir := serviceWithManyFunctions(t)
	out := t.TempDir()
	bin := func(name string, seed uint64) string {
		path := filepath.Join(out, name)
		if err := Layout(ctx, name, dir, ".", report.ServiceBuild{}, LayoutDraw{Seed: seed}, Padding{}, path); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(run(t, "", path)); got != "194" {
			t.Fatalf("%s printed %q: relinking changed what the program does", name, got)
		}
		return path
	}
	one, again, other := bin("one", 1234567), bin("again", 1234567), bin("other", 7654321)
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(read(one), read(again)) {
		t.Error("the same seed linked two different binaries: --seed could not replay a gate's layouts")
	}
	if a, b := symbolOrder(t, one), symbolOrder(t, other); a == b {
		t.Errorf("seeds 1234567 and 7654321 put the functions in the same order:\n%s", a)
	}
	if got := (LayoutDraw{Seed: 42}).Flags(); got != "-randlayout=42" {
		t.Errorf("LayoutDraw{Seed: 42}.Flags() = %q", got)
	}
}

// functionOffsets counts the binary's text symbols by their address
// modulo line.
func functionOffsets(t *testing.T, bin string, line uint64) map[uint64]int {
	t.Helper()
	out, err := exec.Command("go", "tool", "nm", "-n", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	offsets := map[uint64]int{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != "T" {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			t.Fatalf("go tool nm: %q: %v", l, err)
		}
		offsets[addr%line]++
	}
	return offsets
}

// TestAlignedLayoutStartsEveryFunctionOnALine: a draw with Align 64
// starts every Go function at offset 0 of a 64-byte cache line, whatever
// the order; without it the linker's 32 bytes put some at offset 32,
// which is what made a tight loop's speed a coin flip per relink.
func TestAlignedLayoutStartsEveryFunctionOnALine(t *testing.T) {
	ctx := context.Background()
	if abilities := ReadLinkerAbilities(ctx); !abilities.RandLayout || !abilities.FuncAlign {
		t.Fatal("this toolchain's linker lacks -randlayout or -funcalign; perfgate's own CI must run one that has both")
	}
	dir := serviceWithManyFunctions(t)
	out := t.TempDir()
	for _, draw := range []LayoutDraw{{Seed: 11, Align: 64}, {Seed: 12, Align: 64}, {Seed: 11}} {
		path := filepath.Join(out, strings.ReplaceAll(draw.Flags(), " ", "_"))
		if err := Layout(ctx, "head", dir, ".", report.ServiceBuild{}, draw, Padding{}, path); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(run(t, "", path)); got != "194" {
			t.Fatalf("%s: printed %q: relinking changed what the program does", draw.Flags(), got)
		}
		offsets := functionOffsets(t, path, 64)
		total := 0
		for _, n := range offsets {
			total += n
		}
		// Assembly functions of the runtime keep alignments of their
		// own; Go's thousands of functions follow -funcalign.
		if draw.Align == 64 && offsets[0] < total-total/50 {
			t.Errorf("%s: %d of %d functions start at offset 0 of a 64-byte line, want nearly all: %v", draw.Flags(), offsets[0], total, offsets)
		}
		if draw.Align == 0 && offsets[32] < total/4 {
			t.Errorf("%s: %d of %d functions at offset 32 of a line: the linker's own alignment (32 bytes) should put about half there: %v", draw.Flags(), offsets[32], total, offsets)
		}
	}
	if got := (LayoutDraw{Seed: 7, Align: 64}).Flags(); got != "-randlayout=7 -funcalign=64" {
		t.Errorf("LayoutDraw{Seed: 7, Align: 64}.Flags() = %q", got)
	}
}
