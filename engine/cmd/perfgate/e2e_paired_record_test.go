package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/gittest"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/trend"
)

// TestPairedNightsRecordAndConfirmAStep is the paired nightly on a real
// repository of the example service: night 0 is recorded alone, night 1
// (the fmt.Sprintf trace planted: allocations per request up by half) with
// --pair-with last, a duet against night 0. Its report and history entry
// hold the paired estimates, and perfgate trend --confirm reads the step
// from that night alone, confirmed by its duet without another gate.
func TestPairedNightsRecordAndConfirmAStep(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("cp", "-r", exampleService(t), repo).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, "perfgate.yml"), []byte(fmt.Sprintf(shortExperiment, "30s", "256Mi")), 0o644); err != nil {
		t.Fatal(err)
	}
	git := gittest.In(t, repo)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "night 0")
	night0 := git("rev-parse", "HEAD")
	historyDir := filepath.Join(t.TempDir(), "history")
	plant := filepath.Join(repoRoot(t), "examples", "regressions", "alloc-sprintf.patch")
	// As the Action runs it: in the service's directory, --config relative.
	t.Chdir(repo)
	record := func(extra ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "results")
		args := append([]string{"run", "--config", "perfgate.yml", "--src", repo, "--label", "main", "--out", out, "--history", historyDir}, extra...)
		code := run(context.Background(), args, &stdout, &stderr)
		t.Logf("perfgate %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		return code, out, stderr.String()
	}

	if code, _, stderr := record("--pair-with", "last"); code != 0 || !strings.Contains(stderr, "no valid recording of this config yet, so tonight is recorded alone") {
		t.Fatalf("the first night: exit %d; want it recorded alone, saying why", code)
	}
	git("apply", plant)
	git("add", "-A")
	git("commit", "-q", "-m", "night 1: trace every search")
	night1 := git("rev-parse", "HEAD")
	code, out, pairedLog := record("--pair-with", "last")
	if code != 0 {
		t.Fatalf("the paired night: exit %d", code)
	}
	if !strings.Contains(pairedLog, "pairs.min is 6: a paired night of fewer than 11 rounds cannot reach the 99.9% interval") {
		t.Error("no warning that six rounds cannot reach the trend's interval")
	}
	var rep report.Report
	if data, err := os.ReadFile(filepath.Join(out, "report.json")); err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report.json: %v", err)
	}
	compared := 0
	for _, r := range rep.Runs {
		if r.Compared() {
			compared++
		}
	}
	if rep.Mode != report.ModeRecord || rep.Verdict != report.Pass || rep.PairedWith != night0 || rep.Experiment != "duet" || compared != 12 {
		t.Fatalf("mode %s verdict %s (%s) paired with %q experiment %s, %d compared runs; want a pass recording, a duet of 6 rounds against %s",
			rep.Mode, rep.Verdict, rep.Reason, rep.PairedWith, rep.Experiment, compared, night0[:7])
	}
	var allocs *report.PairedEstimate
	for i := range rep.Paired {
		if rep.Paired[i].Name == "allocs" {
			allocs = &rep.Paired[i]
		}
	}
	if allocs == nil || allocs.Estimate < 0.3 || allocs.CI[0] <= 0 || allocs.Pairs != 6 {
		t.Fatalf("paired allocs %+v; want above +30%%, its interval above zero, over 6 rounds", allocs)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "#### Against "+night0[:12]+", measured at the same time") || strings.Contains(string(md), "regressed") {
		t.Errorf("report.md does not show the paired estimates, or decides:\n%s", md)
	}
	var entry history.Entry
	if data, err := os.ReadFile(filepath.Join(out, "history-entry.json")); err != nil || json.Unmarshal(data, &entry) != nil {
		t.Fatalf("history-entry.json: %v", err)
	}
	if p := entry.Paired; p == nil || p.With != night0 || p.Metrics["allocs"].Estimate != allocs.Estimate || entry.Metrics["allocs"].N != 6 || entry.Runs != 6 {
		t.Fatalf("entry's paired block %+v, allocs %+v; want night 0's commit and the report's estimate beside head's 6 runs", entry.Paired, entry.Metrics["allocs"])
	}

	var stdout, stderr bytes.Buffer
	trendOut := filepath.Join(t.TempDir(), "trend")
	// Six rounds reach a 96.9% interval, not the default search's 99.9%
	// (11 rounds would): --alpha 0.05 lets this short night count, and
	// the trend still warns that the nights are short.
	if code := run(context.Background(), []string{"trend", "--config", "perfgate.yml", "--src", repo, "--history", historyDir, "--out", trendOut, "--confirm", "--alpha", "0.05"}, &stdout, &stderr); code != 0 {
		t.Fatalf("perfgate trend: exit %d\n%s", code, stderr.String())
	}
	var tr trend.Trend
	if data, err := os.ReadFile(filepath.Join(trendOut, trend.TrendJSON)); err != nil || json.Unmarshal(data, &tr) != nil {
		t.Fatalf("trend.json: %v", err)
	}
	var step *trend.Step
	for _, s := range tr.Series {
		for i := range s.Steps {
			if s.Metric == "allocs" {
				step = &s.Steps[i]
			}
		}
	}
	if step == nil || step.Paired == nil || step.Before != night0 || step.After != night1 {
		t.Fatalf("allocs step %+v; want night 0 to night 1, from the paired night", step)
	}
	c := step.Confirmation
	if c == nil || c.Status != history.Confirmed || c.Commit != night1 || c.Gates != 0 || c.Estimate != allocs.Estimate {
		t.Fatalf("confirmation %+v; want confirmed at night 1 by its duet, no gate", c)
	}
	if tr.Alarm.State != trend.AlarmOpen {
		t.Errorf("alarm %s; want open", tr.Alarm.State)
	}
}

// TestPairWithRefusesWhatItCannotPairWith: --pair-with last needs the
// history it reads, and a revision that does not exist is named.
func TestPairWithRefusesWhatItCannotPairWith(t *testing.T) {
	cfg := writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pair-with", "last"}, "--pair-with last reads the newest recording from the history; pass --history DIR too"},
		{[]string{"--pair-with", "no-such-tag"}, `--pair-with "no-such-tag" is not a commit, branch or tag of the repository at`},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"run", "--config", cfg, "--src", repoRoot(t), "--label", "main", "--out", filepath.Join(t.TempDir(), "results")}, c.args...)
		code := run(context.Background(), args, &stdout, &stderr)
		if code != exitConfig || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), exitConfig, c.want)
		}
	}
}
