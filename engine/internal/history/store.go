package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	// the file as they are.
	Warnings []string
}

// Path is the history file of config in dir.
func Path(dir, config string) string { return filepath.Join(dir, config+".jsonl") }

// line is one line of a history file: its bytes, kept verbatim, and what
// could be read of it.
type line struct {
	raw    []byte
	header header
	usable bool // a known kind of this or an older schema
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
	lines, err := readLines(f.Path)
	if err != nil {
		return nil, err
	}
	for i, l := range lines {
		if w := l.warning(f.Path, i+1); w != "" {
			f.Warnings = append(f.Warnings, w)
			continue
		}
		switch l.header.Kind {
		case KindEntry:
			var e Entry
			if err := json.Unmarshal(l.raw, &e); err != nil {
				f.Warnings = append(f.Warnings, fmt.Sprintf("line %d of %s is not an entry (%v); kept as is", i+1, f.Path, err))
				continue
			}
			f.Entries = append(f.Entries, e)
		case KindConfirmation:
			var c Confirmation
			if err := json.Unmarshal(l.raw, &c); err != nil {
				f.Warnings = append(f.Warnings, fmt.Sprintf("line %d of %s is not a confirmation (%v); kept as is", i+1, f.Path, err))
				continue
			}
			f.Confirmations = append(f.Confirmations, c)
		}
	}
	sort.SliceStable(f.Entries, func(i, j int) bool { return f.Entries[i].Time.Before(f.Entries[j].Time) })
	return f, nil
}

// warning says why a line cannot be used, or "" when it can.
func (l line) warning(path string, n int) string {
	switch {
	case l.usable:
		return ""
	case l.header.Schema > Schema:
		return fmt.Sprintf("line %d of %s was written by a newer perfgate (schema %d, this one reads %d); kept as is; upgrade perfgate to read it", n, path, l.header.Schema, Schema)
	case l.header.Kind != "":
		return fmt.Sprintf("line %d of %s is of an unknown kind %q; kept as is", n, path, l.header.Kind)
	}
	return fmt.Sprintf("line %d of %s is not a history line (%.60q); kept as is", n, path, l.raw)
}

func readLines(path string) ([]line, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		lines = append(lines, parseLine(append([]byte(nil), raw...)))
	}
	return lines, sc.Err()
}

func parseLine(raw []byte) line {
	l := line{raw: raw}
	if json.Unmarshal(raw, &l.header) != nil {
		l.header = header{}
		return l
	}
	l.usable = l.header.Schema >= 1 && l.header.Schema <= Schema && l.header.ID != "" &&
		(l.header.Kind == KindEntry || l.header.Kind == KindConfirmation)
	return l
}

// Keep is the pruning rule: the newest Entries entries and Confirmations
// confirmations of a config stay; older ones go. Lines that cannot be
// read are never dropped.
type Keep struct {
	Entries       int
	Confirmations int
}

// DefaultKeep keeps a year of nightlies with room for re-runs (about
// 1 MB: docs/history.md) and the last hundred confirmations.
var DefaultKeep = Keep{Entries: 400, Confirmations: 100}

// Add appends records (Entry or Confirmation values, or raw JSON lines as
// json.RawMessage) to config's history in dir, skipping those whose ID is
// already there, so a retry adds nothing twice. It holds an exclusive lock
// on the file's .lock companion while it reads, prunes by keep and
// replaces the file atomically (a crash leaves the old file or the new).
// It returns how many records were new, and warnings about lines kept
// unread.
func Add(dir, config string, keep Keep, records ...any) (int, []string, error) {
	var fresh []line
	for i, r := range records {
		raw, ok := r.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(r); err != nil {
				return 0, nil, err
			}
		}
		l := parseLine(raw)
		if !l.usable {
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
	lines, err := readLines(Path(dir, config))
	if err != nil {
		return 0, nil, err
	}
	var warnings []string
	seen := map[string]bool{}
	for i, l := range lines {
		if w := l.warning(Path(dir, config), i+1); w != "" {
			warnings = append(warnings, w)
		}
		if l.usable {
			seen[l.header.Kind+"|"+l.header.ID] = true
		}
	}
	added := 0
	for _, l := range fresh {
		if key := l.header.Kind + "|" + l.header.ID; !seen[key] {
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

// prune drops the oldest usable lines of each kind beyond keep.
func prune(lines []line, keep Keep) []line {
	limit := map[string]int{KindEntry: keep.Entries, KindConfirmation: keep.Confirmations}
	drop := map[int]bool{}
	for kind, n := range limit {
		var idx []int
		for i, l := range lines {
			if l.usable && l.header.Kind == kind {
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

// lock takes an exclusive flock on path, waiting for other writers.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
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
