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

// Layout builds pkg in tree as Build does with how's tags, linker flags
// and cgo setting, with its functions in the order the seed draws (the
// linker's -randlayout), to outPath. seed is between 1 and 2^63-1: 0 is
// the linker's "do not randomize". A custom build command cannot be
// relinked: perfgate.yml refuses it with layout: random. padding, when
// not the zero Padding, is the never-run code Pad sized for this side.
func Layout(ctx context.Context, label, tree, pkg string, how report.ServiceBuild, seed uint64, padding Padding, outPath string) error {
	if err := refuseBuildCommand(label, how, "relinked with a layout per round"); err != nil {
		return err
	}
	if seed == 0 {
		return &Error{Label: label, Command: "go build", Err: errors.New("layout seed 0 means no layout of its own")}
	}
	_, err := goBuild(ctx, label, tree, pkg, how, outPath, seed, padding.overlay)
	return err
}

// LayoutFlag is the linker flag that draws the layout of seed, as a
// reproduce line or a user's own build would pass it in -ldflags.
func LayoutFlag(seed uint64) string {
	return "-randlayout=" + strconv.FormatUint(seed, 10)
}

// LayoutsSupported reports whether the Go toolchain's linker can randomize
// layouts (-randlayout, in Go 1.23 and later); without it every round
// runs the one layout of each side's build.
func LayoutsSupported(ctx context.Context) bool {
	cmd := exec.CommandContext(ctx, "go", "tool", "link", "-help")
	cmd.Env = append(cmd.Environ(), "GOTOOLCHAIN=local")
	privilege.AsInvoker(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// -help exits 2 after printing the usage: only the text tells.
	_ = cmd.Run()
	return strings.Contains(out.String(), "-randlayout")
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
