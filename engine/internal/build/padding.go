package build

import (
	"context"
	"debug/elf"
	"debug/macho"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// PaddingFile is the name of the file padding adds to the service's main
// package through go build -overlay; the tree itself is never written.
const PaddingFile = "zz_perfgate_layout_padding.go"

// paddingCalibration is the number of functions the first padded build
// holds, to learn how many bytes of text one takes with this toolchain.
const paddingCalibration = 256

// PaddingMaxFunctions caps a padding (about 250 bytes each on amd64, so
// some 5 MB of text): a pull request that adds tens of megabytes of code
// would otherwise make a generated file the compiler takes minutes over.
// Beyond it the smaller side is padded part of the way.
const PaddingMaxFunctions = 20_000

// Padding is never-run code added to one side's relinks so that its text
// section is as large as the other side's. The linker's -randlayout
// shuffles every function of the binary, hot and cold alike, so a round's
// hot functions lie scattered over the whole text section: the larger the
// section, the thinner they lie, and the more instruction-cache and TLB
// misses each request pays. A pull request that adds code the load never
// runs (a dependency used at start-up) makes the head's section larger
// and, under layout: random, its hot path slower by itself, where the
// default linker layout keeps each package's functions together
// (docs/benchmarks.md, "Layout padding"). Padding the smaller side gives
// both the same size.
type Padding struct {
	report.LayoutPadding
	// overlay is the go build -overlay file that adds the code.
	overlay string
}

// TextBytes is the size of the executable code (the ELF .text section, or
// Mach-O __TEXT,__text) of the binary at path.
func TextBytes(path string) (uint64, error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if s := f.Section(".text"); s != nil {
			return s.Size, nil
		}
		return 0, fmt.Errorf("%s: an ELF binary without a .text section", path)
	}
	if f, err := macho.Open(path); err == nil {
		defer f.Close()
		if s := f.Section("__text"); s != nil {
			return s.Size, nil
		}
		return 0, fmt.Errorf("%s: a Mach-O binary without a __text section", path)
	}
	return 0, fmt.Errorf("%s: neither an ELF nor a Mach-O binary", path)
}

// PadRequest is what Pad pads: Package in Tree, built as How says, whose
// text section is Unpadded bytes in Build's binary and must grow by
// Missing.
type PadRequest struct {
	Label, Tree, Package string
	How                  report.ServiceBuild
	Unpadded, Missing    uint64
}

// Pad builds r's package as Build does, with never-run functions added to
// its main package until its text section has grown by r.Missing bytes
// (at most PaddingMaxFunctions of them), and returns the padding for
// Layout's relinks. It builds twice into binDir, a directory the builds
// may write: once with paddingCalibration functions to learn their size
// with this toolchain and architecture, once with the number that fills
// the gap, to within a fraction of a percent (0.4% of 100 KB in
// TestPadGrowsTheTextSectionToTheTarget).
func Pad(ctx context.Context, r PadRequest, binDir string) (Padding, error) {
	if err := refuseBuildCommand(r.Label, r.How, "padded"); err != nil {
		return Padding{}, err
	}
	// The sources are written by perfgate, which may be root, and read by
	// the builds, which run as the invoking user: a directory of their
	// own, not binDir, which that user could fill with links.
	sources, err := os.MkdirTemp(binDir, "padding-")
	if err != nil {
		return Padding{}, err
	}
	if err := os.Chmod(sources, 0o755); err != nil {
		return Padding{}, err
	}
	_, grown, err := buildPadded(ctx, r, paddingCalibration, sources, binDir)
	if err != nil {
		return Padding{}, err
	}
	if grown == 0 {
		return Padding{}, &Error{Label: r.Label, Command: "pad the text section", Err: fmt.Errorf("%d functions of padding added no code: the overlay did not reach the package", paddingCalibration)}
	}
	functions := min(int(float64(r.Missing)*paddingCalibration/float64(grown)+0.5), PaddingMaxFunctions)
	if functions == 0 {
		return Padding{}, nil
	}
	p, grown, err := buildPadded(ctx, r, functions, sources, binDir)
	if err != nil {
		return Padding{}, err
	}
	p.Bytes = grown
	return p, nil
}

// buildPadded builds r's package with n functions of padding (the sources
// in sourceDir, the binary in binDir, removed once measured) and returns
// the padding and how much it grew the text section.
func buildPadded(ctx context.Context, r PadRequest, n int, sourceDir, binDir string) (Padding, uint64, error) {
	p, err := writePadding(r.Tree, r.Package, n, filepath.Join(sourceDir, fmt.Sprintf("%s-%d", r.Label, n)))
	if err != nil {
		return Padding{}, 0, err
	}
	out := filepath.Join(binDir, fmt.Sprintf("%s.padded-%d", r.Label, n))
	defer os.Remove(out)
	if _, err := goBuild(ctx, r.Label, r.Tree, r.Package, r.How, out, LayoutDraw{}, p.overlay); err != nil {
		return Padding{}, 0, err
	}
	text, err := TextBytes(out)
	if err != nil {
		return Padding{}, 0, &Error{Label: r.Label, Command: "read the text section", Err: err}
	}
	if text < r.Unpadded {
		return Padding{}, 0, &Error{Label: r.Label, Command: "pad the text section", Err: fmt.Errorf("%d functions of padding shrank it from %d to %d bytes", n, r.Unpadded, text)}
	}
	return p, text - r.Unpadded, nil
}

// writePadding writes the padding source of n functions and the overlay
// that adds it to tree's pkg as PaddingFile, under prefix. The overlay
// names the package directory with its symbolic links resolved: the go
// command finds the package from its working directory as the kernel
// reports it, and an overlay for another spelling of the path would not
// apply.
func writePadding(tree, pkg string, n int, prefix string) (Padding, error) {
	pkgDir, err := filepath.Abs(filepath.Join(tree, pkg))
	if err != nil {
		return Padding{}, err
	}
	if pkgDir, err = filepath.EvalSymlinks(pkgDir); err != nil {
		return Padding{}, err
	}
	target := filepath.Join(pkgDir, PaddingFile)
	if _, err := os.Lstat(target); err == nil {
		return Padding{}, fmt.Errorf("%s exists: the overlay would replace the service's own file of that name; rename it", target)
	}
	source := prefix + ".go"
	if err := writeNew(source, paddingSource(n)); err != nil {
		return Padding{}, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {target: source}})
	if err != nil {
		return Padding{}, err
	}
	p := Padding{LayoutPadding: report.LayoutPadding{Functions: n}, overlay: prefix + ".overlay.json"}
	return p, writeNew(p.overlay, overlay)
}

// writeNew creates path, which must not exist yet, readable by every user
// whatever the umask (the builds may run as another user).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	return errors.Join(err, f.Close())
}

// paddingSource is a file of package main with n functions the linker
// keeps and no request runs: each is reachable only from the one before
// it, the first from an init function, each call behind a condition that
// never holds (the compiler cannot prove it, so it cannot drop them). They
// are not inlined, so each is a function of its own that -randlayout
// shuffles like any other. They keep no pointer in data the garbage
// collector would scan. Names start with perfgatePadding to stay clear of
// the service's own.
func paddingSource(n int) []byte {
	// Constants of one encoded size (32-bit immediates on amd64) and one
	// divisor keep the functions of about one size, so that the
	// calibration's size holds for all of them.
	const big = 1 << 20
	var b strings.Builder
	b.WriteString(`// Code generated by perfgate (layout padding); DO NOT EDIT.

package main

// perfgatePaddingArg is never negative: the functions below are linked and
// never run.
var perfgatePaddingArg = 1

func init() {
	if perfgatePaddingArg < 0 {
		perfgatePaddingArg = perfgatePadding0(perfgatePaddingArg)
	}
}
`)
	for i := range n {
		next := "x"
		if i+1 < n {
			next = fmt.Sprintf("perfgatePadding%d(x)", i+1)
		}
		fmt.Fprintf(&b, `
//go:noinline
func perfgatePadding%[1]d(x int) int {
	switch x %% 7 {
	case 0:
		x = x*%[2]d + %[3]d
	case 1:
		x ^= %[4]d
	case 2:
		x = (x << 3) - %[5]d
	case 3:
		x = x/7 + %[6]d
	case 4:
		x = x*x - %[7]d
	case 5:
		x = (x >> 2) | %[8]d
	default:
		return %[9]s
	}
	return x
}
`, i, big+i, big+7*i, big+13*i, big+i+11, big+5*i, big+3*i, big+17*i, next)
	}
	return []byte(b.String())
}
