package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestWriteJSONIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	tests := []struct {
		name    string
		value   any
		wantErr bool
		want    string // the file's content afterwards
	}{
		{"new file", map[string]int{"runs": 1}, false, "{\n  \"runs\": 1\n}\n"},
		{"replaces", map[string]int{"runs": 2}, false, "{\n  \"runs\": 2\n}\n"},
		// A value that cannot be encoded leaves the last good file.
		{"unencodable keeps the old file", map[string]float64{"delta": math.NaN()}, true, "{\n  \"runs\": 2\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteJSON(path, tt.value)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			assertOnly(t, dir, "report.json")
		})
	}
}

func TestWriteJSONIntoMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := WriteJSON(filepath.Join(dir, "gone", "run.json"), 1); err == nil {
		t.Fatal("no error writing into a missing directory")
	}
	assertOnly(t, dir)
}

// TestWriteJSONCleansUpWhenTheRenameFails: the rename onto a directory
// fails after the temporary file was written; it must not stay behind.
func TestWriteJSONCleansUpWhenTheRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(path, 1); err == nil {
		t.Fatal("no error replacing a directory")
	}
	assertOnly(t, dir, "report.json")
}

func TestWriteReportAndRun(t *testing.T) {
	dir := t.TempDir()
	r := report.Run{Side: "head", Pair: 2, Dir: filepath.Join("head", "run-02"), Valid: true}
	if err := os.MkdirAll(filepath.Join(dir, r.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteRun(dir, r); err != nil {
		t.Fatal(err)
	}
	var back report.Run
	readJSON(t, filepath.Join(dir, r.Dir, "run.json"), &back)
	if back.Side != "head" || back.Pair != 2 || !back.Valid {
		t.Errorf("run.json read back as %+v", back)
	}
	assertOnly(t, filepath.Join(dir, r.Dir), "run.json")

	rep := &report.Report{Schema: report.Schema, Verdict: report.Pass, Runs: []report.Run{r}}
	if err := WriteReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	var repBack report.Report
	readJSON(t, filepath.Join(dir, "report.json"), &repBack)
	if repBack.Verdict != report.Pass || len(repBack.Runs) != 1 {
		t.Errorf("report.json read back as %+v", repBack)
	}
	if err := WriteReport(filepath.Join(dir, "missing"), rep); err == nil {
		t.Error("WriteReport into a missing directory succeeded")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// assertOnly checks dir holds exactly names: no .tmp file left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("%s holds %v, want %v", dir, got, names)
		}
	}
}
