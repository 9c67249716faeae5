package build

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// serviceWithManyFunctions is a module whose main package has enough
// functions for a shuffle of their order to show.
func serviceWithManyFunctions(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/layout\n\ngo 1.24\n")
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	for _, name := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"} {
		src.WriteString("//go:noinline\nfunc " + name + "(n int) int { return n*len(\"" + name + "\") + 1 }\n\n")
	}
	src.WriteString("func main() { fmt.Println(alpha(1) + bravo(2) + charlie(3) + delta(4) + echo(5) + foxtrot(6) + golf(7) + hotel(8)) }\n")
	write(t, filepath.Join(dir, "main.go"), src.String())
	return dir
}

// symbolOrder is the program's main.* functions in address order.
func symbolOrder(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command("go", "tool", "nm", "-n", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "T" && strings.HasPrefix(f[2], "main.") {
			names = append(names, f[2])
		}
	}
	return strings.Join(names, " ")
}

// TestLayoutDrawsAFunctionOrderPerSeed: a layout is the same program with
// its functions in another order; the same seed links the same bytes
// (--seed replays a gate's layouts), another seed another order.
func TestLayoutDrawsAFunctionOrderPerSeed(t *testing.T) {
	ctx := context.Background()
	if !LayoutsSupported(ctx) {
		t.Fatal("this toolchain's linker has no -randlayout; perfgate's own CI must run one that has")
	}
	dir := serviceWithManyFunctions(t)
	out := t.TempDir()
	bin := func(name string, seed uint64) string {
		path := filepath.Join(out, name)
		if err := Layout(ctx, name, dir, ".", report.ServiceBuild{}, seed, Padding{}, path); err != nil {
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
	if LayoutFlag(42) != "-randlayout=42" {
		t.Errorf("LayoutFlag(42) = %q", LayoutFlag(42))
	}
}
