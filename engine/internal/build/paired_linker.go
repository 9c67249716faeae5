package build

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// Paired layouts (layout_pairing: paired, and alternate's odd rounds)
// relink base and head of a round from one seed, so that the functions
// both sides share sit alike in both binaries and what their placement
// does to the CPU cancels in the round's head/base ratio (common random
// numbers); over rounds each side's layout stays as random as an
// independent draw, so the gate estimates the same change. On route it
// took out no measurable noise once functions were aligned, so it is not
// the default (docs/benchmarks.md, "Paired layouts").
//
// The toolchain's -randlayout cannot pair them by itself: it shuffles the
// list of functions, and a list one function longer is shuffled into a
// wholly different order. perfgate therefore links with a copy of the
// toolchain's own linker, built from the toolchain's source with two
// files laid over it (go build -overlay): one sorts the functions by a
// hash of the seed and each function's name where the shuffle was, the
// other lets the linker stand in for the toolchain's as go build's
// -toolexec, running the compiler and the assembler untouched.

//go:embed pairedlink/paired_order.go.txt
var pairedOrderSource []byte

//go:embed pairedlink/toolexec.go.txt
var pairedToolexecSource []byte

// shuffleInLinker is the statement of the linker's layout code
// (cmd/link/internal/ld/data.go, Go 1.23 and later) that the paired
// order replaces; the rand it drew from is kept, unused.
const shuffleInLinker = `r.Shuffle(len(textp), func(i, j int) {
			textp[i], textp[j] = textp[j], textp[i]
		})`

const pairedOrderCall = `_ = r
		perfgatePairedOrder(ldr, textp, *flagRandLayout)`

// PairedLinker builds the paired-layout linker into dir and returns its
// path, to pass to Layout in LayoutDraw.Linker. It fails when this
// toolchain's linker source is not where or what perfgate expects (a Go
// older than 1.23, or a later one that changed the layout code): the
// caller then pairs the seeds alone, which pairs the layouts only of
// builds with the same functions.
func PairedLinker(ctx context.Context, dir string) (string, error) {
	goroot, err := goEnv(ctx, "GOROOT")
	if err != nil {
		return "", err
	}
	ld := filepath.Join(goroot, "src", "cmd", "link", "internal", "ld")
	data, err := os.ReadFile(filepath.Join(ld, "data.go"))
	if err != nil {
		return "", fmt.Errorf("read the linker's source to pair layouts: %w", err)
	}
	if bytes.Count(data, []byte(shuffleInLinker)) != 1 {
		return "", errors.New("this toolchain's linker (cmd/link/internal/ld/data.go) does not shuffle functions the way perfgate's paired layouts replace")
	}
	patched := bytes.Replace(data, []byte(shuffleInLinker), []byte(pairedOrderCall), 1)
	overlayDir := filepath.Join(dir, "overlay")
	files := map[string][]byte{
		"data.go":            patched,
		"paired_order.go":    pairedOrderSource,
		"paired_toolexec.go": pairedToolexecSource,
	}
	if err := os.MkdirAll(overlayDir, 0o755); err != nil {
		return "", err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(overlayDir, name), content, 0o644); err != nil {
			return "", err
		}
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(ld, "data.go"):                                        filepath.Join(overlayDir, "data.go"),
		filepath.Join(ld, "perfgate_paired_order.go"):                       filepath.Join(overlayDir, "paired_order.go"),
		filepath.Join(goroot, "src", "cmd", "link", "perfgate_toolexec.go"): filepath.Join(overlayDir, "paired_toolexec.go"),
	}})
	if err != nil {
		return "", err
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "", err
	}
	// The go command names the tool by the binary's base name (-V=full
	// must say "link").
	linker := filepath.Join(dir, "link")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-overlay="+overlayFile, "-o", linker, "cmd/link")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	// Built and run by whoever runs go build for the services.
	privilege.AsInvoker(cmd)
	if err := privilege.GiveToInvoker(dir); err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := affinity.Run(cmd); err != nil {
		return "", &Error{Label: "the paired-layout linker", Command: "go build -overlay=" + overlayFile + " cmd/link", OutputTail: lastLines(out.String(), 40), Err: err}
	}
	return linker, nil
}

// goEnv is one variable of go env, as the toolchain that builds the
// services sees it.
func goEnv(ctx context.Context, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", name)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	privilege.AsInvoker(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	value := strings.TrimSpace(string(out))
	if value == "" {
		return "", fmt.Errorf("go env %s is empty", name)
	}
	return value, nil
}
