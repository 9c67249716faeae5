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

	"github.com/perfgate/perfgate/engine/internal/report"
)

// The linker's -randlayout shuffles every function of the binary, hot and
// cold alike, so a round's hot functions lie scattered over the whole
// text section: the larger the section, the thinner they lie, and the
// more instruction-cache and TLB misses each request pays. A pull request
// that adds code the load never runs (a dependency used at start-up, a
// cold route) makes the head's section larger and so its hot path slower
// under layout: random, where the default linker layout keeps each
// package's functions together and barely moves them (docs/benchmarks.md,
// "Layout padding"). Padding the smaller side's binary with never-run
// functions until both text sections are the same size gives both sides
// the same density, so that only the code that runs is compared.

// PaddingFile is the name of the file padding adds to the service's main
// package through go build -overlay; the tree itself is never written.
const PaddingFile = "zz_perfgate_layout_padding.go"

// paddingCalibration is the number of functions the first padded build
// holds, to learn how many bytes of text one takes with this toolchain.
const paddingCalibration = 256

// Padding is never-run code added to one side's build so that its text
// section is as large as the other side's.
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

// Pad builds pkg in tree as Build does, with never-run functions added to
// its main package until its text section, unpadded bytes in Build's
// binary, has grown by missing bytes, and returns the padding for Layout's
// relinks. It builds twice in workDir: once with paddingCalibration
// functions to learn their size with this toolchain and architecture,
// once with the number that fills missing. The init function and the
// alignment between functions make that a little more than missing (0.4%
// for 100 KB in TestPadGrowsTheTextSectionToTheTarget), against the tens
// of kilobytes a padding is worth for (paddingThreshold in session).
func Pad(ctx context.Context, label, tree, pkg string, how report.ServiceBuild, unpadded, missing uint64, workDir string) (Padding, error) {
	if len(how.Command) > 0 {
		return Padding{}, &Error{Label: label, Command: strings.Join(how.Command, " "), Err: errors.New("a binary built by service.build.command cannot be padded; use layout: build")}
	}
	sized := func(functions int) (Padding, uint64, error) {
		p, err := writePadding(tree, pkg, functions, filepath.Join(workDir, fmt.Sprintf("%s.padding-%d", label, functions)))
		if err != nil {
			return p, 0, err
		}
		out := filepath.Join(workDir, fmt.Sprintf("%s.padded-%d", label, functions))
		if _, err := goBuild(ctx, label, tree, pkg, how, out, 0, p.overlay); err != nil {
			return p, 0, err
		}
		text, err := TextBytes(out)
		if err != nil {
			return p, 0, &Error{Label: label, Command: "read the text section", Err: err}
		}
		if text < unpadded {
			return p, 0, &Error{Label: label, Command: "pad the text section", Err: fmt.Errorf("%d functions of padding shrank it from %d to %d bytes", functions, unpadded, text)}
		}
		return p, text - unpadded, nil
	}
	_, grown, err := sized(paddingCalibration)
	if err != nil {
		return Padding{}, err
	}
	if grown == 0 {
		return Padding{}, &Error{Label: label, Command: "pad the text section", Err: fmt.Errorf("%d functions of padding added no code", paddingCalibration)}
	}
	perFunction := float64(grown) / paddingCalibration
	functions := int(float64(missing)/perFunction + 0.5)
	if functions == 0 {
		return Padding{}, nil
	}
	p, grown, err := sized(functions)
	if err != nil {
		return Padding{}, err
	}
	p.Bytes = grown
	return p, nil
}

// writePadding writes the padding source of n functions and the overlay
// that adds it to tree's pkg as PaddingFile, under prefix.
func writePadding(tree, pkg string, n int, prefix string) (Padding, error) {
	pkgDir, err := filepath.Abs(filepath.Join(tree, pkg))
	if err != nil {
		return Padding{}, err
	}
	target := filepath.Join(pkgDir, PaddingFile)
	if _, err := os.Lstat(target); err == nil {
		return Padding{}, fmt.Errorf("%s exists: the overlay would replace the service's own file of that name; rename it", target)
	}
	source := prefix + ".go"
	if err := os.WriteFile(source, paddingSource(n), 0o644); err != nil {
		return Padding{}, err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {target: source}})
	if err != nil {
		return Padding{}, err
	}
	p := Padding{LayoutPadding: report.LayoutPadding{Functions: n}, overlay: prefix + ".overlay.json"}
	return p, os.WriteFile(p.overlay, overlay, 0o644)
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
	// Constants of one encoded size (32-bit immediates) make every
	// function the same size, so the calibration's measures all of them.
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
		x = x/%[6]d + %[10]d
	case 4:
		x = x*x - %[7]d
	case 5:
		x = (x >> 2) | %[8]d
	default:
		return %[9]s
	}
	return x
}
`, i, big+i, big+7*i, big+13*i, big+i+11, i%9+2, big+3*i, big+17*i, next, big+5*i)
	}
	return []byte(b.String())
}
