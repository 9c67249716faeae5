package build

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// A binary's layout (the order and alignment of its functions in memory)
// moves a Go service's CPU per request by about ±0.6% with no change to
// its code (docs/benchmarks.md, "Layout bias"). A pull request changes the
// layout even where it does not touch the hot path, and base and head each
// keep one layout for a whole gate: an accident of layout would be a bias
// no number of rounds averages away. Relinking each round's binaries with
// the linker's -randlayout draws a new function order per round, which
// turns that bias into noise between rounds. Relinking reuses the compiled
// packages from the Go build cache: only the link runs again.

// A LayoutDraw is one relink's layout: the order the seed draws (the
// linker's -randlayout; seed is between 1 and 2^63-1, 0 being the
// linker's "do not randomize") with every function aligned to Align
// bytes (-funcalign; 0 keeps the linker's own, 32 on amd64). Aligning
// every function to a cache line takes out what the order alone cannot:
// at the linker's 32 bytes each relink puts every loop at offset 0 or 32
// of its line by chance, and a hot path that sits in one tight loop runs
// at two speeds (docs/benchmarks.md, "Where a round's spread comes
// from").
//
// Linker, when not "", is the paired-layout linker (PairedLinker) that
// links in place of the toolchain's: the same seed then orders the
// functions two builds share alike in both.
type LayoutDraw struct {
	Seed   uint64
	Align  int
	Linker string
}

// Layout builds pkg in tree as Build does with how's tags, linker flags
// and cgo setting, with the layout draw says, to outPath. A custom build
// command cannot be relinked: perfgate.yml refuses it with layout:
// random. padding, when not the zero Padding, is the never-run code Pad
// sized for this side.
func Layout(ctx context.Context, label, tree, pkg string, how report.ServiceBuild, draw LayoutDraw, padding Padding, outPath string) error {
	if err := refuseBuildCommand(label, how, "relinked with a layout per round"); err != nil {
		return err
	}
	if draw.Seed == 0 {
		return &Error{Label: label, Command: "go build", Err: errors.New("layout seed 0 means no layout of its own")}
	}
	_, err := goBuild(ctx, label, tree, pkg, how, outPath, draw, padding.overlay)
	return err
}

// Flags are the linker flags of the draw, as a reproduce line or a
// user's own build would pass them in -ldflags; "" for the zero draw
// (a build's own layout).
func (draw LayoutDraw) Flags() string {
	var flags []string
	if draw.Seed != 0 {
		flags = append(flags, "-randlayout="+strconv.FormatUint(draw.Seed, 10))
	}
	if draw.Align != 0 {
		flags = append(flags, "-funcalign="+strconv.Itoa(draw.Align))
	}
	return strings.Join(flags, " ")
}

// LinkerAbilities are the layout flags the Go toolchain's linker has.
type LinkerAbilities struct {
	// RandLayout: it can randomize layouts (-randlayout, in Go 1.23 and
	// later); without it every round runs the one layout of each side's
	// build.
	RandLayout bool
	// FuncAlign: it can align functions as asked (-funcalign); without
	// it the relinks keep the linker's own alignment.
	FuncAlign bool
}

// ReadLinkerAbilities asks the toolchain's linker which layout flags it
// has (one run of its usage text).
func ReadLinkerAbilities(ctx context.Context) LinkerAbilities {
	help := linkerHelp(ctx)
	return LinkerAbilities{RandLayout: strings.Contains(help, "-randlayout"), FuncAlign: strings.Contains(help, "-funcalign")}
}

// linkerHelp is the usage text of the toolchain's linker, which lists
// the flags it has.
func linkerHelp(ctx context.Context) string {
	cmd := exec.CommandContext(ctx, "go", "tool", "link", "-help")
	cmd.Env = append(cmd.Environ(), "GOTOOLCHAIN=local")
	privilege.AsInvoker(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// -help exits 2 after printing the usage: only the text tells.
	_ = cmd.Run()
	return out.String()
}

// refuseBuildCommand is the error for a binary that service.build.command
// builds, which perfgate cannot rebuild as what says (relink it, pad it);
// nil when go build builds it.
func refuseBuildCommand(label string, how report.ServiceBuild, what string) error {
	if len(how.Command) == 0 {
		return nil
	}
	return &Error{Label: label, Command: strings.Join(how.Command, " "), Err: errors.New("a binary built by service.build.command cannot be " + what + "; use layout: build")}
}
