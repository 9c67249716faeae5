package trend

import (
	"context"
	"encoding/json"
	"errors"
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
	// DefaultMaxGates bounds the paired gates of one run, whatever the
	// number of steps: with the default budget, five steps confirmed and
	// bisected in full.
	DefaultMaxGates = 20
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
		c = &confirmer{gate: o.Checkout.Gate, commits: o.Checkout.Commits, budget: o.Settings.Budget, maxGates: o.Settings.MaxGates, minStep: o.Settings.MinMagnitude, out: o.Out, config: o.Config, now: o.Now}
	}
	saved, err := openRecords(o, t)
	if err != nil {
		return nil, err
	}
	defer saved.close()
	limited := 0
steps:
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
				break steps
			}
			conf, err := c.confirm(ctx, t.Series[i], *st)
			if errors.As(err, new(gateLimit)) {
				limited++
				continue
			}
			if err != nil {
				t.Warnings = append(t.Warnings, "interrupted before every step was confirmed")
				break steps
			}
			conf.Reason = history.Clean(conf.Reason, history.MaxText)
			st.Confirmation = &conf
			known[id] = conf
			added = append(added, conf)
			if err := saved.add(conf); err != nil {
				return t, err
			}
			if conf.Status == history.Confirmed {
				gates = used(gates, conf, t.Series[i].Machine)
			}
		}
	}
	if limited > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("this run reached its limit of %d paired gates: %d step(s) are left unchecked, for the next nights to confirm", c.maxGates, limited))
	}
	if c != nil {
		all := append(append([]history.Confirmation{}, file.Confirmations...), added...)
		reversals := shownReversals(gates, c.gates, alarmOf(o.Config, all).Open, recordedAt(t.Series), known)
		added = append(added, reversals...)
		if err := saved.add(reversals...); err != nil {
			return t, err
		}
	}
	if err := saved.close(); err != nil {
		return t, err
	}
	all := append(append([]history.Confirmation{}, file.Confirmations...), added...)
	t.Alarm = alarmOf(o.Config, all)
	return t, write(o, t)
}

// records keeps a run's new confirmations as each is made: a line of
// history-records.jsonl in Out (synced: the Action uploads it, and mode
// publish adds it to the data branch) and a line of the history
// directory. A trend cut short (the job's timeout or a cancellation sends
// SIGINT and SIGTERM, then kills; a write that fails later) keeps every
// confirmation it finished, each the result of a paired gate that may
// have taken minutes.
type records struct {
	o Options
	t *Trend
	f *os.File
}

// openRecords starts history-records.jsonl empty: it holds this run's
// confirmations only.
func openRecords(o Options, t *Trend) (*records, error) {
	f, err := os.Create(filepath.Join(o.Out, RecordsJSONL))
	if err != nil {
		return nil, err
	}
	return &records{o: o, t: t, f: f}, nil
}

// add writes confirmations to history-records.jsonl and the history
// directory before it returns.
func (r *records) add(confs ...history.Confirmation) error {
	if len(confs) == 0 {
		return nil
	}
	lines := make([]any, len(confs))
	for i, c := range confs {
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := r.f.Write(append(data, '\n')); err != nil {
			return fmt.Errorf("write %s: %w", r.f.Name(), err)
		}
		lines[i] = c
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", r.f.Name(), err)
	}
	_, warnings, err := history.Add(r.o.HistoryDir, r.o.Config, history.DefaultKeep, lines...)
	r.t.Warnings = append(r.t.Warnings, warnings...)
	if err != nil {
		return fmt.Errorf("add the confirmations to the history at %s: %w", r.o.HistoryDir, err)
	}
	return nil
}

// close closes history-records.jsonl; a second close does nothing.
func (r *records) close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
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
