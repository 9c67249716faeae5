package privilege

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestChownTreeNeverLeavesTheTree: the results directory is writable by
// the user perfgate gives it back to, who can plant links in it while
// root walks it. Whatever is planted, root's chown must stay on the
// tree's own entries; a root-owned file outside, changed during the run,
// keeps its owner.
func TestChownTreeNeverLeavesTheTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	for _, tc := range []struct {
		name string
		// plant changes the tree at dir, whose logs directory holds
		// stderr.log, given outside: a directory with a root-owned file
		// "secret". swap, when set, runs after dir is listed and before
		// its entries are visited.
		plant, swap func(t *testing.T, dir, outside string)
		// given are paths under dir that must end up the invoker's.
		given []string
	}{
		{name: "a symbolic link to a file is changed itself",
			plant: func(t *testing.T, dir, outside string) {
				must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")))
			},
			given: []string{"link", "logs/stderr.log"}},
		{name: "a directory swapped for a link after the listing is not followed",
			swap: func(t *testing.T, dir, outside string) {
				must(t, os.Rename(filepath.Join(dir, "logs"), filepath.Join(dir, "moved")))
				must(t, os.Symlink(outside, filepath.Join(dir, "logs")))
			}},
		{name: "a hard link to a file outside keeps its owner",
			plant: func(t *testing.T, dir, outside string) {
				must(t, os.Link(filepath.Join(outside, "secret"), filepath.Join(dir, "hard")))
			},
			given: []string{"logs", "logs/stderr.log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o600))
			must(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "logs", "stderr.log"), []byte("x"), 0o644))
			if tc.plant != nil {
				tc.plant(t, dir, outside)
			}
			if tc.swap != nil {
				beforeDescend = func(path string) {
					if path == dir {
						tc.swap(t, dir, outside)
					}
				}
				t.Cleanup(func() { beforeDescend = nil })
			}
			invoker := User{UID: 4321, GID: 4322}
			if err := chownTree(dir, invoker, time.Now().Add(-time.Minute)); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{outside, filepath.Join(outside, "secret")} {
				var st syscall.Stat_t
				if err := syscall.Lstat(p, &st); err != nil || st.Uid != 0 || st.Gid != 0 {
					t.Errorf("%s, outside the tree, now owned by %d:%d (%v): root's chown left the tree", p, st.Uid, st.Gid, err)
				}
			}
			for _, p := range append([]string{"."}, tc.given...) {
				var st syscall.Stat_t
				if err := syscall.Lstat(filepath.Join(dir, p), &st); err != nil || st.Uid != 4321 || st.Gid != 4322 {
					t.Errorf("%s: owner %d:%d, %v; want 4321:4322", p, st.Uid, st.Gid, err)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
