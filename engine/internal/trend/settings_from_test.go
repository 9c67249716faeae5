package trend

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestSettingsFromRebuildsTheSameAlarm: a job that reads no perfgate.yml
// (the Action's mode publish) takes the config name, settings and gate
// thresholds from the confirming job's trend.json and, on the same
// history, writes the same alarm.
func TestSettingsFromRebuildsTheSameAlarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var records []any
	for i := 0; i < 24; i++ {
		records = append(records, syntheticEntry(i, 12, "0000000000a1", rng))
	}
	dir := t.TempDir()
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, records...); err != nil {
		t.Fatal(err)
	}
	night := func() time.Time { return time.Date(2026, 10, 26, 3, 0, 0, 0, time.UTC) }
	links := Links{Server: "https://github.com", Repository: "acme/shop", RunID: 42, Artifact: "perfgate-results-trend-attempt-1"}
	gate := report.Gate{CPU: 0.05, Allocs: 0.05, Bytes: 0.05, Errors: 0.01, Alpha: 0.05, Goroutines: 3, Heap: 4096}
	confirming := t.TempDir()
	first, err := Run(context.Background(), Options{HistoryDir: dir, Config: "perfgate", Out: confirming, Stderr: io.Discard, Checkout: &flaky{fixed: true}, Links: links, Now: night,
		Settings: Settings{Alpha: 0.002, MinMagnitude: 0.02, MinSegment: 5, Budget: 1, Gate: gate}})
	if err != nil || first.Alarm.State != AlarmOpen {
		t.Fatalf("confirming run: %v, alarm %+v", err, first.Alarm)
	}

	name, settings, err := SettingsFrom(filepath.Join(confirming, TrendJSON))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Settings{Alpha: 0.002, MinMagnitude: 0.02, MinSegment: 5, Budget: 1, Gate: gate}); name != "perfgate" || settings != want {
		t.Fatalf("SettingsFrom: %q %+v; want perfgate %+v", name, settings, want)
	}
	publishing := t.TempDir()
	second, err := Run(context.Background(), Options{HistoryDir: dir, Config: name, Out: publishing, Stderr: io.Discard, Links: links, Now: night, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if second.Alarm.State != first.Alarm.State || second.Alarm.Title != first.Alarm.Title {
		t.Errorf("alarm %+v; the confirming run's was %+v", second.Alarm, first.Alarm)
	}
	a, _ := os.ReadFile(filepath.Join(confirming, AlarmMD))
	b, _ := os.ReadFile(filepath.Join(publishing, AlarmMD))
	if string(a) != string(b) {
		t.Errorf("alarm.md differs:\n%s\n---\n%s", a, b)
	}
}

// TestSettingsFromRefusesWhatPerfgateNeverWrites: trend.json comes from
// another job's artifact; each field used is checked and named.
func TestSettingsFromRefusesWhatPerfgateNeverWrites(t *testing.T) {
	good := `"alpha": 0.001, "min_magnitude": 0.01, "min_segment": 4, "budget": 3, "gate": {"cpu": "5%", "allocs": "5%", "bytes": "5%", "errors": "0%", "alpha": 0.05, "goroutines": 0, "heap": "0", "latency": "0%"}`
	for _, tc := range []struct{ name, json, want string }{
		{"schema", `{"schema": 2, "config": "perfgate", "settings": {` + good + `}}`, "schema 2"},
		{"config with a path", `{"schema": 1, "config": "../../etc/passwd", "settings": {` + good + `}}`, "not a history config name"},
		{"config with markdown", `{"schema": 1, "config": "x](https://evil)", "settings": {` + good + `}}`, "not a history config name"},
		{"no config", `{"schema": 1, "settings": {` + good + `}}`, "not a history config name"},
		{"alpha", `{"schema": 1, "config": "perfgate", "settings": {` + strings.Replace(good, `"alpha": 0.001`, `"alpha": 0.9`, 1) + `}}`, "alpha 0.9"},
		{"min segment", `{"schema": 1, "config": "perfgate", "settings": {` + strings.Replace(good, `"min_segment": 4`, `"min_segment": 100000`, 1) + `}}`, "min-segment 100000"},
		{"gate", `{"schema": 1, "config": "perfgate", "settings": {` + strings.Replace(good, `"cpu": "5%"`, `"cpu": "-1%"`, 1) + `}}`, "gate.cpu"},
		{"gate alpha", `{"schema": 1, "config": "perfgate", "settings": {` + strings.Replace(good, `"alpha": 0.05`, `"alpha": 0`, 1) + `}}`, "gate.alpha"},
		{"not json", `{"schema": 1,`, "not a trend.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), TrendJSON)
			if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := SettingsFrom(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one naming %q", err, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), TrendJSON)
	f, _ := os.Create(path)
	if err := f.Truncate(maxTrendJSONBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := SettingsFrom(path); err == nil || !strings.Contains(err.Error(), "is over") {
		t.Errorf("an oversized trend.json: %v", err)
	}
}
