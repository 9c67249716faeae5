package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Prebuilt takes binary (perfgate gate --base-binary/--head-binary,
// perfgate run --binary) instead of a build of pkg in tree: it copies it
// to outPath, where the service's user can run it, and records it as
// Build records a build, with the tree's revision and module directory
// for the comment's source links. It must be a Go binary: its `go version
// -m` is the report's record of what ran.
func Prebuilt(ctx context.Context, label, tree, pkg, binary, outPath string) (report.Binary, error) {
	b := report.Binary{Label: label, Source: tree, Path: outPath}
	if err := copyExecutable(binary, outPath); err != nil {
		return b, &Error{Label: label, Command: "copy " + binary, Err: err}
	}
	moduleDir, err := moduleRoot(filepath.Join(tree, pkg))
	if err != nil {
		moduleDir = tree
	}
	return b, record(ctx, &b, tree, moduleDir)
}

// copyExecutable copies the regular, executable file src to dst.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
