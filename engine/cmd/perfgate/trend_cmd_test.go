package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
)

// TestTrendFlagErrors: a bad perfgate trend command line is a usage error
// naming the flag, the value and the fix.
func TestTrendFlagErrors(t *testing.T) {
	cfg := writeConfig(t, decisiveExperiment)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", cfg}, "--history is missing"},
		{[]string{"--config", cfg, "--history", dir, "--alpha", "0.7"}, "--alpha 0.7 is not a significance level"},
		{[]string{"--config", cfg, "--history", dir, "--min-step", "5"}, "--min-step 5 is not a fraction"},
		{[]string{"--config", cfg, "--history", dir, "--min-segment", "1"}, "--min-segment 1 is out of range"},
		{[]string{"--config", cfg, "--history", dir, "--budget", "-1"}, "--budget -1 is negative"},
		{[]string{"--config", cfg, "--history", dir, "--repository", "a/b/c"}, `--repository "a/b/c" is not owner/name`},
		{[]string{"--config", cfg, "--history", dir, "--artifact-name", "x;rm"}, `--artifact-name "x;rm" is not an artifact name`},
		{[]string{"--config", cfg, "--history", dir, "--server-url", "javascript:alert(1)"}, `--server-url "javascript:alert(1)" is not an https:// server URL`},
		{[]string{"--config", filepath.Join(dir, "absent.yml"), "--history", dir}, "absent.yml"},
		{[]string{"--settings-from", filepath.Join(dir, "trend.json"), "--history", dir, "--confirm"}, "--settings-from and --confirm exclude each other"},
		{[]string{"--settings-from", filepath.Join(dir, "trend.json"), "--history", dir, "--config", cfg}, "drop --config"},
		{[]string{"--settings-from", filepath.Join(dir, "trend.json"), "--history", dir, "--alpha", "0.01"}, "drop --alpha"},
		{[]string{"--settings-from", filepath.Join(dir, "absent.json"), "--history", dir}, "--settings-from: open"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"trend", "--out", filepath.Join(t.TempDir(), "trend")}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("trend %v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestHistoryAddIsIdempotent: perfgate history add merges a records file
// into a history directory; re-adding it (a retried CI job) adds nothing.
func TestHistoryAddIsIdempotent(t *testing.T) {
	records := filepath.Join(t.TempDir(), "history-entry.json")
	var lines []string
	for i, commit := range []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"} {
		e := history.Entry{Schema: history.Schema, Kind: history.KindEntry, ID: commit + "@1", Config: "services-api-perfgate", Commit: commit,
			Time: time.Date(2026, 11, 1+i, 3, 0, 0, 0, time.UTC), Verdict: "pass"}
		data, _ := json.Marshal(e)
		lines = append(lines, string(data))
	}
	if err := os.WriteFile(records, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "history")
	for _, want := range []string{"added 2 of 2 lines", "added 0 of 2 lines"} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"history", "add", "--history", dir, "--records", records}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout.String(), stderr.String(), want)
		}
	}
	f, err := history.Read(dir, "services-api-perfgate")
	if err != nil || len(f.Entries) != 2 {
		t.Errorf("%v, %d entries", err, len(f.Entries))
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(lines[0]+"\n{\"config\": \"../../etc\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"history", "add", "--history", dir, "--records", bad}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "line 2 of") {
		t.Errorf("a config name with a path: exit %d, %q", code, stderr.String())
	}
	if code := run(context.Background(), []string{"history", "list"}, &stdout, &stderr); code != 2 {
		t.Errorf("history list: exit %d", code)
	}
}
