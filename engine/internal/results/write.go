// Package results lays out the results directory (docs/cli.md, "Results
// directory"): report.json, per-run records, per-side merged profiles and
// benchstat files.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// WriteJSON writes v as indented JSON, atomically: a reader (or a perfgate
// killed mid-write) never sees half a file.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'))
}

// WriteFile writes data to path atomically: into a temporary file in the
// same directory, synced to disk, then renamed over path. A full disk or a
// crash leaves the old file or the new one, never part of either, and no
// temporary file.
func WriteFile(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// A Rendering is a file made from the report for people: report.md (the
// PR comment) or report.html.
type Rendering struct {
	Name   string
	Render func(*report.Report) ([]byte, error)
}

// WriteReport writes report.json into dir, then each rendering, every file
// atomically. The order is the contract: a rendering is written only once
// report.json is, and one that cannot be written (a full disk) is removed
// rather than left from before, so report.md, the comment, never says what
// report.json, the check, does not.
func WriteReport(dir string, r *report.Report, renderings ...Rendering) error {
	if err := WriteJSON(filepath.Join(dir, "report.json"), r); err != nil {
		for _, x := range renderings {
			os.Remove(filepath.Join(dir, x.Name))
		}
		return fmt.Errorf("write report.json: %w", err)
	}
	var errs []error
	for _, x := range renderings {
		path := filepath.Join(dir, x.Name)
		data, err := x.Render(r)
		if err == nil {
			err = WriteFile(path, data)
		}
		if err != nil {
			os.Remove(path)
			errs = append(errs, fmt.Errorf("write %s: %w", x.Name, err))
		}
	}
	return errors.Join(errs...)
}

// WriteRun writes a run's own record next to its raw files.
func WriteRun(dir string, r report.Run) error {
	return WriteJSON(filepath.Join(dir, r.Dir, "run.json"), r)
}
