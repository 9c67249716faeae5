package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// HistoryEntryFile is the recording's history line in the results
// directory, written by every `perfgate run`, so that a CI job can add it
// to a history kept elsewhere (the Action's data branch).
const HistoryEntryFile = "history-entry.json"

// HistoryOptions say what a recording's history line holds and where it
// goes besides the results directory.
type HistoryOptions struct {
	// Dir is the history directory to append to; "" appends nowhere.
	Dir  string
	Meta history.Meta
}

// keepHistory writes the recording's history line to the results
// directory and, with o.History.Dir, appends it to the config's history.
// It runs after report.json is written: nothing measured waits on it.
func keepHistory(rep *report.Report, o RunOptions) error {
	meta := o.History.Meta
	meta.Config = history.ConfigNameIn(o.ConfigPath, o.Src)
	entry, err := history.FromReport(rep, meta)
	if err != nil && o.History.Dir == "" {
		// Only asked for beside the results: a recording of a tree that is
		// not a git checkout is still a good recording.
		fmt.Fprintf(o.Stderr, "perfgate run: no %s: %v\n", HistoryEntryFile, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("--history %s: %w", o.History.Dir, err)
	}
	data, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.Out, HistoryEntryFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if o.History.Dir == "" {
		return nil
	}
	added, warnings, err := history.Add(o.History.Dir, meta.Config, history.DefaultKeep, entry)
	for _, w := range warnings {
		fmt.Fprintf(o.Stderr, "perfgate run: warning: %s\n", w)
	}
	if err != nil {
		return fmt.Errorf("add the recording to the history at %s: %w", o.History.Dir, err)
	}
	if added > 0 {
		fmt.Fprintf(o.Stderr, "perfgate run: added %s to %s\n", entry.ID, history.Path(o.History.Dir, meta.Config))
	}
	return nil
}
