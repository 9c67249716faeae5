package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// customBuild runs service.build.command in tree with {out} replaced by
// outPath, and returns the directory of the module holding pkg (for the
// report's module directory). It runs without a shell, as the user who ran
// perfgate (privilege.AsInvoker: the pull request's build scripts never
// run as root), with GOTOOLCHAIN=local so that a go.mod cannot switch the
// toolchain between base and head.
func customBuild(ctx context.Context, label, tree, pkg string, command []string, outPath string) (string, error) {
	args := make([]string, len(command))
	for i, a := range command {
		args[i] = strings.ReplaceAll(a, "{out}", outPath)
	}
	shown := strings.Join(args, " ") + " (in " + tree + ")"
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = tree
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	privilege.AsInvoker(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := affinity.Run(cmd); err != nil {
		return "", &Error{Label: label, Command: shown, OutputTail: lastLines(out.String(), 40), Err: err}
	}
	info, err := os.Stat(outPath)
	if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
		why := errors.New("it wrote no executable file at {out}")
		if err == nil && info.Mode().IsRegular() {
			why = errors.New("the file it wrote at {out} is not executable")
		}
		return "", &Error{Label: label, Command: shown, OutputTail: lastLines(out.String(), 40), Err: fmt.Errorf("%w (%s); service.build.command must write the service's binary to the path {out} names", why, outPath)}
	}
	moduleDir, err := moduleRoot(tree + "/" + pkg)
	if err != nil {
		moduleDir = tree
	}
	return moduleDir, nil
}
