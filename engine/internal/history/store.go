package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// File is one config's history as read.
type File struct {
	Path          string
	Entries       []Entry // in time order
	Confirmations []Confirmation
	// Warnings name the lines that could not be used; they are kept in
	// the file as they are (up to Keep.Unreadable of them).
	Warnings []string
}

// Path is the history file of config in dir.
func Path(dir, config string) string { return filepath.Join(dir, config+".jsonl") }

// MaxLineBytes bounds one line of a history file: an entry is about 3 KB
// and a confirmation about 2 KB (docs/history.md). A longer line is
// skipped and counted, and dropped when the file is next written.
const MaxLineBytes = 1 << 20

// line is one line of a history file: its bytes, kept verbatim, and what
// could be read of it.
type line struct {
	raw    []byte
	header header
	// problem says why a line of a known kind and schema cannot be used
	// (a field out of bounds: validate.go); "" when it can.
	problem string
	known   bool // a known kind of this or an older schema
	entry   *Entry
	confirm *Confirmation
}

func (l line) usable() bool { return l.known && l.problem == "" }

// key is what makes a line new to a history: an entry's ID; a
// confirmation's ID and time, since a step whose confirmation failed is
// tried again on a later night (trend.maxAttempts) and each attempt is
// kept, while the same attempt added twice is one line.
func (l line) key() string {
	if l.header.Kind == KindConfirmation {
		return l.header.Kind + "|" + l.header.ID + "|" + l.header.Time.UTC().Format(time.RFC3339Nano)
	}
	return l.header.Kind + "|" + l.header.ID
}

type header struct {
	Schema int       `json:"schema"`
	Kind   string    `json:"kind"`
	ID     string    `json:"id"`
	Time   time.Time `json:"time"`
}

// Read reads config's history in dir. A missing file is an empty
// history; a line that cannot be used is a warning, never an error.
func Read(dir, config string) (*File, error) {
	f := &File{Path: Path(dir, config)}
	lines, long, err := readLines(f.Path, config, time.Now())
	if err != nil {
		return nil, err
	}
	if long > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d line(s) of %s are longer than %d bytes: skipped, and dropped when the history is next written", long, f.Path, MaxLineBytes))
	}
	for i, l := range lines {
		if w := l.warning(f.Path, i+1); w != "" {
			f.Warnings = append(f.Warnings, w)
			continue
		}
		switch {
		case l.entry != nil:
			f.Entries = append(f.Entries, *l.entry)
		case l.confirm != nil:
			f.Confirmations = append(f.Confirmations, *l.confirm)
		}
	}
	sort.SliceStable(f.Entries, func(i, j int) bool { return f.Entries[i].Time.Before(f.Entries[j].Time) })
	return f, nil
}

// warning says why a line cannot be used, or "" when it can.
func (l line) warning(path string, n int) string {
	switch {
	case l.usable():
		return ""
	case l.problem != "":
		return fmt.Sprintf("line %d of %s is a %s that cannot be used: %s; kept as is", n, path, l.header.Kind, l.problem)
	case l.header.Schema > Schema:
		return fmt.Sprintf("line %d of %s was written by a newer perfgate (schema %d, this one reads %d); kept as is; upgrade perfgate to read it", n, path, l.header.Schema, Schema)
	case l.header.Kind != "":
		return fmt.Sprintf("line %d of %s is of an unknown kind %.40q; kept as is", n, path, l.header.Kind)
	}
	return fmt.Sprintf("line %d of %s is not a history line (%.60q); kept as is", n, path, l.raw)
}

// readLines reads the lines of path, each checked for config at now, and
// counts the lines over MaxLineBytes, which it skips.
func readLines(path, config string, now time.Time) ([]line, int, error) {
	file, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer file.Close()
	var (
		lines []line
		long  int
		buf   []byte
	)
	r := bufio.NewReaderSize(file, 64<<10)
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf) <= MaxLineBytes {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		if raw := bytes.TrimSpace(buf); len(buf) > MaxLineBytes {
			long++
		} else if len(raw) > 0 {
			lines = append(lines, parseLine(append([]byte(nil), raw...), config, now))
		}
		buf = buf[:0]
		if err != nil {
			flagPredated(lines)
			return lines, long, nil
		}
	}
}

// flagPredated makes unusable each confirmation dated before the first
// entry of its step's after commit: a step is found from that entry, so a
// confirmation older than it was written before the step existed (a line
// planted to settle a step in advance, or to keep an alarm closed). The
// step is then confirmed again, and the new confirmation, of the same ID,
// is added beside the flagged one.
func flagPredated(lines []line) {
	recorded := map[string]time.Time{}
	for _, l := range lines {
		if e := l.entry; e != nil {
			if t, ok := recorded[e.Commit]; !ok || e.Time.Before(t) {
				recorded[e.Commit] = e.Time
			}
		}
	}
	for i := range lines {
		c := lines[i].confirm
		if c == nil {
			continue
		}
		if t, ok := recorded[c.After]; ok && c.Time.Before(t) {
			lines[i].problem = fmt.Sprintf("dated %s, before the entry of its step's after commit (%s)", c.Time.UTC().Format(time.RFC3339), t.UTC().Format(time.RFC3339))
			lines[i].confirm = nil
		}
	}
}

// parseLine reads one line of config's history and checks every field of
// a known kind (validate.go) against now.
func parseLine(raw []byte, config string, now time.Time) line {
	l := line{raw: raw}
	if json.Unmarshal(raw, &l.header) != nil {
		l.header = header{}
		return l
	}
	l.known = l.header.Schema >= 1 && l.header.Schema <= Schema && l.header.ID != "" &&
		(l.header.Kind == KindEntry || l.header.Kind == KindConfirmation)
	if !l.known {
		return l
	}
	var err error
	switch l.header.Kind {
	case KindEntry:
		l.entry = &Entry{}
		if err = json.Unmarshal(raw, l.entry); err == nil {
			l.problem = l.entry.problem(config, now)
		}
	case KindConfirmation:
		l.confirm = &Confirmation{}
		if err = json.Unmarshal(raw, l.confirm); err == nil {
			l.problem = l.confirm.problem(config, now)
		}
	}
	if err != nil {
		l.problem = err.Error()
	}
	if l.problem != "" {
		l.entry, l.confirm = nil, nil
	}
	return l
}

// Keep is the pruning rule: the newest Entries entries and Confirmations
// confirmations of a config stay, and the last Unreadable lines that
// cannot be used (corrupt, out of bounds, or of a newer schema); older
// ones go.
type Keep struct {
	Entries       int
	Confirmations int
	Unreadable    int
}

// DefaultKeep keeps a year of nightlies with room for re-runs (about
// 1 MB: docs/history.md), the last hundred confirmations, and as many
// unreadable lines: enough to survive a downgrade between releases, too
// few for junk to grow the file without bound.
var DefaultKeep = Keep{Entries: 400, Confirmations: 100, Unreadable: 100}

// Add appends records (Entry or Confirmation values, or raw JSON lines as
// json.RawMessage) to config's history in dir, skipping those already
// there (line.key), so a retry adds nothing twice. A record that is not a
// valid line of config's history (validate.go) is an error, and nothing is
// added. It holds an exclusive lock on the file's .lock companion while it
// reads, prunes by keep and replaces the file atomically (a crash leaves
// the old file or the new). It returns how many records were new, and
// warnings about lines kept unread.
func Add(dir, config string, keep Keep, records ...any) (int, []string, error) {
	now := time.Now()
	var fresh []line
	for i, r := range records {
		raw, ok := r.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(r); err != nil {
				return 0, nil, err
			}
		}
		l := parseLine(raw, config, now)
		switch {
		case l.problem != "":
			return 0, nil, fmt.Errorf("record %d is a %s that cannot be added to the history of %s: %s", i+1, l.header.Kind, config, l.problem)
		case !l.usable():
			return 0, nil, fmt.Errorf("record %d is not a history line of schema %d: %.80q", i+1, Schema, raw)
		}
		fresh = append(fresh, l)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, err
	}
	unlock, err := lock(Path(dir, config) + ".lock")
	if err != nil {
		return 0, nil, err
	}
	defer unlock()
	lines, long, err := readLines(Path(dir, config), config, now)
	if err != nil {
		return 0, nil, err
	}
	var warnings []string
	if long > 0 {
		warnings = append(warnings, fmt.Sprintf("%d line(s) of %s longer than %d bytes were dropped", long, Path(dir, config), MaxLineBytes))
	}
	seen := map[string]bool{}
	for i, l := range lines {
		if w := l.warning(Path(dir, config), i+1); w != "" {
			warnings = append(warnings, w)
		}
		if l.usable() {
			seen[l.key()] = true
		}
	}
	added := 0
	for _, l := range fresh {
		if key := l.key(); !seen[key] {
			seen[key] = true
			lines = append(lines, l)
			added++
		}
	}
	if added == 0 {
		return 0, warnings, nil
	}
	return added, warnings, replace(Path(dir, config), prune(lines, keep))
}

// prune drops the oldest usable lines of each kind beyond keep, by their
// validated times, and the unusable lines before the last keep.Unreadable
// (their times cannot be trusted, so the file's order decides).
func prune(lines []line, keep Keep) []line {
	limit := map[string]int{KindEntry: keep.Entries, KindConfirmation: keep.Confirmations}
	drop := map[int]bool{}
	for kind, n := range limit {
		var idx []int
		for i, l := range lines {
			if l.usable() && l.header.Kind == kind {
				idx = append(idx, i)
			}
		}
		if n <= 0 || len(idx) <= n {
			continue
		}
		sort.SliceStable(idx, func(a, b int) bool { return lines[idx[a]].header.Time.Before(lines[idx[b]].header.Time) })
		for _, i := range idx[:len(idx)-n] {
			drop[i] = true
		}
	}
	var unusable []int
	for i, l := range lines {
		if !l.usable() {
			unusable = append(unusable, i)
		}
	}
	if len(unusable) > keep.Unreadable {
		for _, i := range unusable[:len(unusable)-keep.Unreadable] {
			drop[i] = true
		}
	}
	kept := lines[:0:0]
	for i, l := range lines {
		if !drop[i] {
			kept = append(kept, l)
		}
	}
	return kept
}

// replace writes lines to a temporary file beside path, syncs it and
// renames it over path.
func replace(path string, lines []line) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, l := range lines {
		// A bufio.Writer keeps its first error and Flush returns it.
		_, _ = w.Write(l.raw)
		_ = w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable once the directory is synced; a failure here
	// leaves the file written, so it is not an error.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// openNoFollow opens path unless it is a symbolic link. The history's
// directory is a checkout the job's user can write to, while perfgate may
// run as root: a link planted there must not have root create a file
// elsewhere (the lock's O_CREATE) or read one (/etc/shadow's lines would
// come back in warnings and in the rewritten history).
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link, which perfgate does not follow in a history directory: remove it (perfgate makes the file itself)", path)
	}
	return f, err
}

// lock takes an exclusive flock on path, waiting for other writers.
func lock(path string) (func(), error) {
	f, err := openNoFollow(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		// Closing the file releases the lock even if unlocking failed.
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
