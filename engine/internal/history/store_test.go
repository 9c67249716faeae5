package history

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func entry(i int) Entry {
	commit := fmt.Sprintf("%040x", i)
	return Entry{Schema: Schema, Kind: KindEntry, ID: fmt.Sprintf("%s@%d", commit, i), Config: "perfgate", Commit: commit,
		Time: time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour), Verdict: "pass",
		Metrics: map[string]Summary{"cpu": {Unit: "µs/req", Median: float64(40 + i%3), N: 6}}}
}

// confirmation is a confirmed regression of the step from entry i's
// commit to entry i+1's, on one machine.
func confirmation(i int) Confirmation {
	before, after := entry(i).Commit, entry(i+1).Commit
	return Confirmation{Schema: Schema, Kind: KindConfirmation, ID: ConfirmationID("cpu", "0123456789ab", before, after), Config: "perfgate",
		Metric: "cpu", Machine: "0123456789ab", Before: before, After: after, Time: time.Date(2026, 2, i+1, 0, 0, 0, 0, time.UTC),
		Status: Confirmed, Outcome: "regression", Commit: after, Estimate: 0.05, CI: [2]float64{0.03, 0.07}, CILevel: 0.95, Gates: 1,
		Results: "confirm/" + before[:7] + "-" + after[:7], Functions: []Function{{Profile: "cpu", Name: "main.handle", Unit: "µs/req", Delta: 1.5}}}
}

// TestMain lets a test run this binary as a second writer.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PERFGATE_HISTORY_WRITER"); dir != "" {
		from, _ := strconv.Atoi(os.Getenv("PERFGATE_HISTORY_FROM"))
		for i := from; i < from+50; i++ {
			if _, _, err := Add(dir, "perfgate", DefaultKeep, entry(i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTwoProcessesWritingAtOnceLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, from := range []int{0, 1000} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PERFGATE_HISTORY_WRITER="+dir, fmt.Sprintf("PERFGATE_HISTORY_FROM=%d", from))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	f, err := Read(dir, "perfgate")
	if err != nil || len(f.Entries) != 100 || len(f.Warnings) != 0 {
		t.Fatalf("after two writers: %v, %d entries, warnings %q; want 100 and none", err, len(f.Entries), f.Warnings)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestAddIsIdempotentAndPrunesTheOldest(t *testing.T) {
	dir := t.TempDir()
	keep := Keep{Entries: 5, Confirmations: 2}
	for i := 0; i < 8; i++ {
		if _, _, err := Add(dir, "perfgate", keep, entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	added, _, err := Add(dir, "perfgate", keep, entry(7), entry(6))
	if err != nil || added != 0 {
		t.Errorf("re-adding: added %d, %v; want 0", added, err)
	}
	for i := 0; i < 3; i++ {
		if _, _, err := Add(dir, "perfgate", keep, confirmation(i)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Read(dir, "perfgate")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 5 || f.Entries[0].Commit != entry(3).Commit || len(f.Confirmations) != 2 || f.Confirmations[0].ID != confirmation(1).ID {
		t.Errorf("kept %d entries from %s and confirmations %v; want the newest 5 (from entry 3) and the newest 2", len(f.Entries), f.Entries[0].Commit, f.Confirmations)
	}
}

func TestUnreadableLinesAreKeptAndWarned(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Add(dir, "perfgate", DefaultKeep, entry(1)); err != nil {
		t.Fatal(err)
	}
	future := `{"schema": 2, "kind": "entry", "id": "z", "time": "2020-01-01T00:00:00Z", "renamed": true}`
	corrupt := `{"schema": 1, "kind": "entry", "id": "cut`
	f, _ := os.OpenFile(Path(dir, "perfgate"), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintln(f, future)
	fmt.Fprintln(f, corrupt)
	fmt.Fprintln(f, `{"schema": 1, "kind": "annotation", "id": "a"}`)
	f.Close()

	// Pruning down to one entry must keep the unreadable lines within
	// their own bound.
	if _, _, err := Add(dir, "perfgate", Keep{Entries: 1, Confirmations: 1, Unreadable: 3}, entry(2)); err != nil {
		t.Fatal(err)
	}
	h, err := Read(dir, "perfgate")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Entries) != 1 || h.Entries[0].Commit != entry(2).Commit {
		t.Errorf("entries %+v; want entry 2 alone", h.Entries)
	}
	want := []string{"line 1 of", "newer perfgate (schema 2", "line 2 of", "not a history line", "line 3 of", `unknown kind "annotation"`}
	joined := strings.Join(h.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	data, _ := os.ReadFile(Path(dir, "perfgate"))
	for _, l := range []string{future, corrupt} {
		if !strings.Contains(string(data), l+"\n") {
			t.Errorf("the file lost the line %s:\n%s", l, data)
		}
	}
}

func TestAddRefusesWhatIsNotAHistoryLine(t *testing.T) {
	if _, _, err := Add(t.TempDir(), "perfgate", DefaultKeep, json.RawMessage(`{"schema": 3, "kind": "entry", "id": "x"}`)); err == nil {
		t.Error("a line of a newer schema was added")
	}
	if _, _, err := Add(t.TempDir(), "perfgate", DefaultKeep, Entry{Schema: Schema, Kind: KindEntry}); err == nil {
		t.Error("an entry without an ID was added")
	}
}

func TestMissingHistoryIsEmpty(t *testing.T) {
	f, err := Read(filepath.Join(t.TempDir(), "absent"), "perfgate")
	if err != nil || len(f.Entries) != 0 || len(f.Warnings) != 0 {
		t.Errorf("%v %+v", err, f)
	}
}

func TestConfigName(t *testing.T) {
	for path, want := range map[string]string{
		"perfgate.yml": "perfgate", "services/api/perfgate.yml": "services-api-perfgate", "./Perf Gate.yaml": "perf_gate",
		"../outside/perfgate.yml": "perfgate", "/abs/x.yml": "x", ".hidden.yml": "hidden",
	} {
		if got := ConfigName(path); got != want {
			t.Errorf("ConfigName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestLinksPlantedInTheHistoryAreNotFollowed: the history directory is a
// checkout the job's user can write to while perfgate may run as root; a
// link in place of the lock or the history must not make root create or
// read a file elsewhere.
func TestLinksPlantedInTheHistoryAreNotFollowed(t *testing.T) {
	for _, tc := range []struct {
		name, link string // link is the file of dir replaced by a symbolic link
		read       bool   // whether Read (not only Add) must refuse
	}{
		{name: "the lock", link: "perfgate.jsonl.lock"},
		{name: "the history", link: "perfgate.jsonl", read: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			if filepath.Base(Path(dir, "perfgate")) != "perfgate.jsonl" {
				t.Fatalf("history file %s: update the test's names", Path(dir, "perfgate"))
			}
			secret := filepath.Join(outside, "shadow")
			if err := os.WriteFile(secret, []byte("root:$6$secret-hash:19000:0:99999:7:::\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			missing := filepath.Join(outside, "created-by-root")
			target := secret
			if !tc.read {
				target = missing
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Add(dir, "perfgate", DefaultKeep, entry(1)); err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("Add: err %v, want a refusal naming the symbolic link", err)
			}
			if f, err := Read(dir, "perfgate"); tc.read && (err == nil || !strings.Contains(err.Error(), "symbolic link")) {
				t.Errorf("Read: err %v, warnings %q; want a refusal naming the symbolic link", err, f.Warnings)
			}
			if _, err := os.Lstat(missing); err == nil {
				t.Errorf("%s was created through the link", missing)
			}
			if data, _ := os.ReadFile(secret); string(data) != "root:$6$secret-hash:19000:0:99999:7:::\n" {
				t.Errorf("%s changed through the link: %q", secret, data)
			}
		})
	}
}
