package initconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one file init writes: where, and what.
type File struct {
	Path    string
	Content string
}

// Result is everything `perfgate init` produces for a module.
type Result struct {
	Plan  *Plan
	Files []File // perfgate.yml, then the workflow
	// RepositoryRoot is where the workflow goes: the nearest directory at
	// or above the module holding .git, or the module itself when none
	// does (NoRepository).
	RepositoryRoot string
	NoRepository   bool
}

// Generate inspects the module at dir and renders both files.
func Generate(dir string) (*Result, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	plan, err := Inspect(dir)
	if err != nil {
		return nil, err
	}
	modPath, err := modulePath(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	root, found := repositoryRoot(dir)
	moduleDir, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	return &Result{
		Plan: plan,
		Files: []File{
			{Path: filepath.Join(dir, "perfgate.yml"), Content: ConfigYAML(plan, modPath)},
			{Path: filepath.Join(root, ".github", "workflows", "perfgate.yml"), Content: WorkflowYAML(filepath.ToSlash(moduleDir))},
		},
		RepositoryRoot: root,
		NoRepository:   !found,
	}, nil
}

// repositoryRoot is the nearest directory at or above dir holding .git.
func repositoryRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return dir, false
		}
	}
}

// ExistsError is a file init would have overwritten.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists, and perfgate init never overwrites a file: move it aside and run perfgate init --write again, or run perfgate init without --write to print what it would write and merge it by hand", e.Path)
}

// Write writes the files, none if any of them exists already; each is
// created exclusively, so a file that appears meanwhile is not replaced
// either.
func Write(files []File) error {
	for _, f := range files {
		if _, err := os.Lstat(f.Path); err == nil {
			return &ExistsError{Path: f.Path}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return &ExistsError{Path: f.Path}
		}
		if err != nil {
			return err
		}
		_, err = out.WriteString(f.Content)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}
