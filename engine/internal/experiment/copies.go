package experiment

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// copies gives every round its own fresh copy of each binary. Two
// byte-identical builds in two files measured a steady 0.5-1.4% apart in
// A/A duets on the local target, the same sign in most rounds of a gate
// and a different one from gate to gate: each file's text sits in its own
// page-cache pages, placed once and reused by every process started from
// it, and their placement in the CPU caches favours one copy. A new file
// per round turns that into noise between rounds, which the rounds
// average away, instead of a bias for the whole gate
// (docs/benchmarks.md, "Duet noise and bias").
type copies struct {
	dir string
}

func newCopies() (*copies, error) {
	dir, err := os.MkdirTemp("", "perfgate-round-bin-")
	if err != nil {
		return nil, err
	}
	// The unprivileged service user must reach its binary (see gate's build).
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &copies{dir: dir}, nil
}

// forRound copies the binaries of sides into a directory of round's own
// and returns them by side; done removes them once the round's processes
// have stopped.
func (c *copies) forRound(binaries map[string]string, round int) (map[string]string, func(), error) {
	dir := filepath.Join(c.dir, fmt.Sprintf("round-%02d", round))
	done := func() { os.RemoveAll(dir) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, done, err
	}
	out := make(map[string]string, len(binaries))
	for side, src := range binaries {
		dst := filepath.Join(dir, filepath.Base(src))
		if err := copyFile(src, dst); err != nil {
			return nil, done, fmt.Errorf("copy the %s binary for round %d: %w", side, round, err)
		}
		out[side] = dst
	}
	return out, done, nil
}

// close removes every copy.
func (c *copies) close() { os.RemoveAll(c.dir) }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
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
