package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// RecomputeOptions are the flags of `perfgate compare`.
type RecomputeOptions struct {
	Out string
	// ConfigPath, when set, supplies new gate thresholds; the runs keep
	// the rest of the configuration they were measured with.
	ConfigPath     string
	Stdout, Stderr io.Writer
}

// Recompute (`perfgate compare`) recomputes a results directory's derived
// files (merged profiles, benchstat files) and its statistics and verdict
// from the runs its report.json records: the same last step as a gate (or
// a recording: its medians and verdict), without measuring again.
func Recompute(o RecomputeOptions) (*report.Report, error) {
	path := filepath.Join(o.Out, "report.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, optionError(OptionOut, o.Out, NoReport)
	} else if err != nil {
		return nil, err
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, configErrorf("%s is not a perfgate report (%v)", path, err)
	}
	if err := report.CheckKeys(data); err != nil {
		return nil, configErrorf("%s: %v", path, err)
	}
	if rep.Schema != report.Schema {
		return nil, configErrorf("%s has schema %d; this perfgate reads schema %d", path, rep.Schema, report.Schema)
	}
	// The comparison runs with the configuration the report recorded.
	cfg := config.Config(rep.Config)
	if o.ConfigPath != "" {
		thresholds, err := config.Load(o.ConfigPath)
		if err != nil {
			return nil, &ConfigError{Err: err}
		}
		cfg.Gate = thresholds.Gate
		rep.Config = cfg.Report()
	}
	if rep.Verdict == report.Error && len(rep.Runs) == 0 {
		return &rep, fmt.Errorf("%s records no runs (%s); nothing to compare", path, rep.Reason)
	}
	g := &invocation{out: o.Out, stdout: o.Stdout, stderr: o.Stderr, cfg: &cfg, rep: &rep}
	g.conclude(nil)
	return &rep, g.saveWithRenderings()
}
