package trend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Default detection settings: p ≤ 0.001 as Apache Otava and MongoDB use,
// steps of at least 1% (relative metrics), four entries on each side.
const (
	DefaultAlpha        = 0.001
	DefaultMinMagnitude = 0.01
	DefaultMinSegment   = 4
	DefaultBudget       = 3
)

// Options are `perfgate trend`'s.
type Options struct {
	HistoryDir string
	// Config is the history file's name (history.ConfigName).
	Config string
	Out    string
	// Settings are the detection's; their Gate comes from the config.
	Settings Settings
	// Checkout builds and gates the commits of new steps (a Checkout);
	// nil (no --confirm) leaves steps unchecked.
	Checkout Checker
	Links    Links
	Now      func() time.Time
	Stderr   io.Writer
}

// Checker runs the paired gates that confirm a step: Checkout, the git
// checkout perfgate trend --confirm is given.
type Checker interface {
	Gate(ctx context.Context, before, after, out string) (*report.Report, error)
	Commits(ctx context.Context, before, after string) ([]string, error)
}

// Output files, in Out.
const (
	TrendJSON    = "trend.json"
	SummaryMD    = "summary.md"
	AlarmMD      = "alarm.md"
	IndexHTML    = "index.html"
	RecordsJSONL = "history-records.jsonl"
)

// maxAttempts is how many nights a step whose confirmation failed (its
// gate could not run: a build that failed, an invalid measurement, a
// commit missing from a shallow checkout) is tried: a passing cause is
// retried, a lasting one does not cost gates every night.
const maxAttempts = 3

// Run reads the history, finds and confirms steps, adds new
// confirmations to the history and writes the outputs.
func Run(ctx context.Context, o Options) (*Trend, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	file, err := history.Read(o.HistoryDir, o.Config)
	if err != nil {
		return nil, err
	}
	t := &Trend{Schema: Schema, Config: o.Config, Generated: o.Now().UTC(), Entries: len(file.Entries), Settings: o.Settings, Warnings: append([]string{}, file.Warnings...)}
	t.Settings.Confirm = o.Checkout != nil
	for _, e := range file.Entries {
		if e.Verdict == "pass" {
			t.Used++
		}
	}
	t.Series = buildSeries(file.Entries)
	t.Warnings = append(t.Warnings, findSteps(t.Series, t.Settings)...)

	// The newest attempt at each step's confirmation, and how many there
	// were: a failed one (a gate that could not run) is tried again on
	// later nights, up to maxAttempts.
	known := map[string]history.Confirmation{}
	attempts := map[string]int{}
	for _, c := range file.Confirmations {
		attempts[c.ID]++
		if k, ok := known[c.ID]; !ok || !c.Time.Before(k.Time) {
			known[c.ID] = c
		}
	}
	var added []history.Confirmation
	var gates []gateUse
	var c *confirmer
	if o.Checkout != nil {
		c = &confirmer{gate: o.Checkout.Gate, commits: o.Checkout.Commits, budget: o.Settings.Budget, minStep: o.Settings.MinMagnitude, out: o.Out, config: o.Config, now: o.Now}
	}
	for i := range t.Series {
		for j := range t.Series[i].Steps {
			st := &t.Series[i].Steps[j]
			id := confirmationID(t.Series[i], *st)
			k, ok := known[id]
			if ok {
				st.Confirmation = &k
			}
			if c == nil || (ok && (k.Status != history.Failed || attempts[id] >= maxAttempts)) {
				continue
			}
			if err := ctx.Err(); err != nil {
				t.Warnings = append(t.Warnings, "interrupted before every step was confirmed")
				break
			}
			conf := c.confirm(ctx, t.Series[i], *st)
			conf.Reason = history.Clean(conf.Reason, history.MaxText)
			st.Confirmation = &conf
			known[id] = conf
			added = append(added, conf)
			if conf.Status == history.Confirmed {
				gates = used(gates, conf, t.Series[i].Machine)
			}
		}
	}
	if c != nil {
		all := append(append([]history.Confirmation{}, file.Confirmations...), added...)
		added = append(added, shownReversals(gates, c.gates, alarmOf(o.Config, all).Open, recordedAt(t.Series), known)...)
	}
	if err := keep(o, added, t); err != nil {
		return t, err
	}
	all := append(append([]history.Confirmation{}, file.Confirmations...), added...)
	t.Alarm = alarmOf(o.Config, all)
	return t, write(o, t)
}

// keep adds the new confirmations to the history directory and writes
// them to history-records.jsonl, for the Action to add to the data
// branch when another writer got there first.
func keep(o Options, added []history.Confirmation, t *Trend) error {
	f, err := os.Create(filepath.Join(o.Out, RecordsJSONL))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, c := range added {
		if err := enc.Encode(c); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if len(added) == 0 {
		return nil
	}
	lines := make([]any, len(added))
	for i, c := range added {
		lines[i] = c
	}
	_, warnings, err := history.Add(o.HistoryDir, o.Config, history.DefaultKeep, lines...)
	t.Warnings = append(t.Warnings, warnings...)
	if err != nil {
		return fmt.Errorf("add the confirmations to the history at %s: %w", o.HistoryDir, err)
	}
	return nil
}

// write writes trend.json, summary.md, alarm.md and index.html.
func write(o Options, t *Trend) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	files := map[string]string{
		TrendJSON: string(data) + "\n",
		SummaryMD: summaryMarkdown(t, o.Links),
		AlarmMD:   alarmMarkdown(o.Config, t.Alarm, t.Series, o.Links),
		IndexHTML: pageHTML(t),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(o.Out, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
