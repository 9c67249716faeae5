// Package results lays out the results directory of DESIGN.md "Outputs":
// report.json, per-run records, per-side merged profiles and benchstat
// files.
package results

import (
	"encoding/json"
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
	tmp := path + ".tmp"
	err = os.WriteFile(tmp, append(data, '\n'), 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		// A half-written or unrenamed temporary file is litter in the
		// results directory.
		os.Remove(tmp)
	}
	return err
}

// WriteReport writes report.json into dir.
func WriteReport(dir string, r *report.Report) error {
	if err := WriteJSON(filepath.Join(dir, "report.json"), r); err != nil {
		return fmt.Errorf("write report.json: %w", err)
	}
	return nil
}

// WriteRun writes a run's own record next to its raw files.
func WriteRun(dir string, r report.Run) error {
	return WriteJSON(filepath.Join(dir, r.Dir, "run.json"), r)
}
