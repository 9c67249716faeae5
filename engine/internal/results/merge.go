package results

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// MergeProfiles merges each profile kind over a side's valid runs into
// <side>.<kind>.pb.gz, so `go tool pprof -diff_base base.cpu.pb.gz
// head.cpu.pb.gz` compares whole sides. It returns the files written.
func MergeProfiles(dir string, runs []report.Run, side metric.Side) ([]string, error) {
	// Profiles are merged as they are read, so at most two are in memory
	// at once whatever the number of runs (10 runs of a big service's
	// profiles would otherwise need gigabytes).
	merged := map[string]*profile.Profile{}
	var kinds []string
	for _, r := range runs {
		if metric.SideOf(r) != side || !r.Valid {
			continue
		}
		for _, p := range r.Profiles {
			if p.File == "" {
				continue
			}
			prof, err := capture.ReadProfile(filepath.Join(dir, r.Dir, p.File))
			if err != nil {
				return nil, err
			}
			if merged[p.Name] == nil {
				kinds = append(kinds, p.Name)
				merged[p.Name] = prof
				continue
			}
			if merged[p.Name], err = profile.Merge([]*profile.Profile{merged[p.Name], prof}); err != nil {
				return nil, fmt.Errorf("merge %s %s profiles: %w", side, p.Name, err)
			}
		}
	}
	var written []string
	for _, kind := range kinds {
		merged := merged[kind]
		if kind == "allocs" {
			// What was allocated during the window, not what was still
			// in use, is what `go tool pprof` should show first.
			merged.DefaultSampleType = "alloc_space"
		}
		name := fmt.Sprintf("%s.%s.pb.gz", side, kind)
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return written, err
		}
		err = merged.Write(f)
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			return written, fmt.Errorf("write %s: %w", name, err)
		}
		written = append(written, name)
	}
	return written, nil
}
