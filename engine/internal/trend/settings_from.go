package trend

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/history"
)

// maxTrendJSONBytes bounds a trend.json read as input: one written by
// perfgate trend holds at most history.DefaultKeep entries per series.
const maxTrendJSONBytes = 64 << 20

// Problem says what is wrong with the detection settings, or "". The
// same rules apply to perfgate trend's flags and to a trend.json read
// with SettingsFrom.
func (s Settings) Problem() string {
	switch {
	case !(s.Alpha > 0 && s.Alpha < 0.5):
		return fmt.Sprintf("alpha %v is not a significance level; use a value like %v", s.Alpha, DefaultAlpha)
	case !(s.MinMagnitude >= 0 && s.MinMagnitude < 1):
		return fmt.Sprintf("min-step %v is not a fraction; use e.g. 0.01 for 1%%", s.MinMagnitude)
	case s.MinSegment < 2 || s.MinSegment > history.DefaultKeep.Entries:
		return fmt.Sprintf("min-segment %d is out of range; use 2 to %d (default %d)", s.MinSegment, history.DefaultKeep.Entries, DefaultMinSegment)
	case s.Budget < 0:
		return fmt.Sprintf("budget %d is negative; use 0 (no bisection) or more", s.Budget)
	case s.MaxGates < 0:
		return fmt.Sprintf("max-gates %d is negative; use the most paired gates one run may run, such as %d", s.MaxGates, DefaultMaxGates)
	}
	return ""
}

// SettingsFrom reads the config name and the detection settings (gate
// thresholds included) of a trend.json an earlier perfgate trend wrote,
// so that a job that reads no perfgate.yml (the Action's mode publish)
// finds the same steps. The file is untrusted input (another job's
// artifact): every field used is checked, the rest is ignored.
func SettingsFrom(path string) (configName string, s Settings, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", Settings{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTrendJSONBytes+1))
	if err != nil {
		return "", Settings{}, err
	}
	if len(data) > maxTrendJSONBytes {
		return "", Settings{}, fmt.Errorf("%s is over %d bytes; a trend.json is far smaller", path, maxTrendJSONBytes)
	}
	var t struct {
		Schema   int      `json:"schema"`
		Config   string   `json:"config"`
		Settings Settings `json:"settings"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return "", Settings{}, fmt.Errorf("%s is not a trend.json: %w", path, err)
	}
	if t.Schema != Schema {
		return "", Settings{}, fmt.Errorf("%s has schema %d; this perfgate reads schema %d (use the action and engine of one release)", path, t.Schema, Schema)
	}
	if t.Config == "" || t.Config != history.ConfigName(t.Config) {
		return "", Settings{}, fmt.Errorf("%s names config %.80q, which is not a history config name (letters, digits, '.', '_' and '-')", path, t.Config)
	}
	if p := t.Settings.Problem(); p != "" {
		return "", Settings{}, fmt.Errorf("%s: settings: %s", path, p)
	}
	if err := config.ValidateGate(path, t.Settings.Gate); err != nil {
		return "", Settings{}, fmt.Errorf("settings.gate: %w", err)
	}
	// Whether it confirmed is the earlier run's; this one says its own.
	t.Settings.Confirm = false
	return t.Config, t.Settings, nil
}
