// Package build compiles the base and the head of a service with the same
// toolchain and flags, and records what was built.
package build

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Flags are the go build flags of both sides. -trimpath keeps file paths
// (which differ between a worktree and a checkout) out of the binaries and
// their profiles.
var Flags = []string{"-trimpath"}

// Error is a failed build: an infrastructure outcome, not a measurement.
type Error struct {
	Label   string
	Command string
	// OutputTail is the end of the compiler's output.
	OutputTail string
	Err        error
}

func (e *Error) Error() string {
	return fmt.Sprintf("building %s failed (%s: %v):\n%s", e.Label, e.Command, e.Err, e.OutputTail)
}

// GoVersion is the toolchain both sides are built with.
func GoVersion(ctx context.Context) (string, error) {
	version, err := goEnv(ctx, "GOVERSION")
	if err != nil {
		return "", fmt.Errorf("no usable Go toolchain (%w); install Go and put it on PATH", err)
	}
	return version, nil
}

// Build compiles the package pkg (relative to tree, e.g. ./cmd/server) to
// outPath the way how says (service.build), and records what it built, as
// report.json's build section holds it. go build runs in the Go module
// that contains the package, so a service may live in a subdirectory of
// its repository; a custom command runs in tree (custom.go).
func Build(ctx context.Context, label, tree, pkg string, how report.ServiceBuild, outPath string) (report.Binary, error) {
	b := report.Binary{Label: label, Source: tree, Path: outPath}
	abs, err := filepath.Abs(outPath)
	if err != nil {
		return b, err
	}
	var moduleDir string
	if len(how.Command) > 0 {
		moduleDir, err = customBuild(ctx, label, tree, pkg, how.Command, abs)
	} else {
		moduleDir, err = goBuild(ctx, label, tree, pkg, how, abs, LayoutDraw{}, "")
	}
	if err != nil {
		return b, err
	}
	return b, record(ctx, &b, tree, moduleDir)
}

// record fills b's build info (`go version -m` of b.Path), the tree's
// revision and the module's path and directory in the repository.
func record(ctx context.Context, b *report.Binary, tree, moduleDir string) error {
	abs, err := filepath.Abs(b.Path)
	if err != nil {
		return err
	}
	label := b.Label
	version := exec.CommandContext(ctx, "go", "version", "-m", abs)
	privilege.AsInvoker(version)
	info, err := version.Output()
	if err != nil {
		return &Error{Label: label, Command: "go version -m " + abs, Err: fmt.Errorf("%w: not a Go binary with build information", err)}
	}
	b.BuildInfo = string(info)
	// Unreadable only for a format TextBytes does not know: padding
	// then does not apply, and 0 says so.
	b.TextBytes, _ = TextBytes(abs)
	b.Revision, b.Dirty = gitRevision(ctx, tree)
	b.Module = mainModule(b.BuildInfo)
	if b.Revision != "" {
		prefix, _ := git(ctx, moduleDir, "rev-parse", "--show-prefix")
		b.ModuleDir = strings.TrimSuffix(prefix, "/")
	}
	return nil
}

// goBuild runs go build of pkg in tree to outPath with Flags and how's
// tags, linker flags and cgo setting, with the layout of draw when it is
// not the zero draw (Layout) and the files of overlay when it is not ""
// (Pad), and returns the module directory it ran in.
func goBuild(ctx context.Context, label, tree, pkg string, how report.ServiceBuild, outPath string, draw LayoutDraw, overlay string) (string, error) {
	pkgDir := filepath.Join(tree, pkg)
	moduleDir, err := moduleRoot(pkgDir)
	if err != nil {
		return "", &Error{Label: label, Command: "find go.mod", Err: err}
	}
	rel, err := filepath.Rel(moduleDir, pkgDir)
	if err != nil {
		return "", &Error{Label: label, Command: "find go.mod", Err: err}
	}
	abs, err := filepath.Abs(outPath)
	if err != nil {
		return "", err
	}
	args := append([]string{"build"}, Flags...)
	args = append(args, buildFlags(how, draw)...)
	if overlay != "" {
		args = append(args, "-overlay="+overlay)
	}
	args = append(args, "-o", abs, "./"+filepath.ToSlash(rel))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleDir
	cgo := "CGO_ENABLED=0"
	if how.CGO {
		cgo = "CGO_ENABLED=1"
	}
	// One toolchain for both sides: never let a go.mod switch it.
	cmd.Env = append(os.Environ(), cgo, "GOTOOLCHAIN=local")
	// Under sudo the pull request's code is built by the invoking user,
	// with that user's Go caches; perfgate needs root only for cgroups.
	privilege.AsInvoker(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	command := cgo + " go " + strings.Join(args, " ") + " (in " + moduleDir + ")"
	if err := affinity.Run(cmd); err != nil {
		return "", &Error{Label: label, Command: command, OutputTail: lastLines(out.String(), 40), Err: err}
	}
	return moduleDir, nil
}

// buildFlags are go build's -tags and -ldflags from service.build, the
// linker flags of draw added to the user's own linker flags (go build
// takes one -ldflags, the last one given), and draw's linker as
// -toolexec, quoted as go build splits it.
func buildFlags(how report.ServiceBuild, draw LayoutDraw) []string {
	var flags []string
	if len(how.Tags) > 0 {
		flags = append(flags, "-tags="+strings.Join(how.Tags, ","))
	}
	ldflags := strings.TrimSpace(how.LDFlags + " " + draw.Flags())
	if ldflags != "" {
		flags = append(flags, "-ldflags="+ldflags)
	}
	if draw.Linker != "" {
		flags = append(flags, "-toolexec="+quoteForGo(draw.Linker))
	}
	return flags
}

// mainModule is the main module's path in `go version -m` output (its
// "mod" line).
func mainModule(buildInfo string) string {
	for _, line := range strings.Split(buildInfo, "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "mod" {
			return fields[1]
		}
	}
	return ""
}

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	start := dir
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("service.package: %s does not exist", dir)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", start)
		}
		dir = parent
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// quoteForGo quotes one argument the way go build splits a flag that
// holds a command (-toolexec): in single quotes, or in double quotes when
// it holds a single quote.
func quoteForGo(arg string) string {
	if strings.Contains(arg, "'") {
		return `"` + arg + `"`
	}
	return "'" + arg + "'"
}
