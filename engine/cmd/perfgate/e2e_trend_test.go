package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/gittest"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/trend"
)

// TestTrendFindsConfirmsAndBisectsAPlantedRegression is the nightly job on
// a real history: a test repository of the example service gets 17
// commits, the eighth planting the fmt.Sprintf trace (allocations per
// search triple). perfgate run recorded 14 of them, skipping the planted
// commit and the two after it, so the step's range holds four commits.
// perfgate trend --confirm must find the allocs step there, confirm it
// with a paired gate of its two ends and name the planted commit by
// bisection within the default budget: three real gates.
//
// The 14 nights are replayed from testdata/trend-history.jsonl, recorded
// by this test's own perfgate runs (-record-trend) and moved onto this
// run's commits by position, as the Action's trend scenario does: 14 live
// recordings took 151 of the test's 228 s in CI, and 14 are the fewest
// whose 7/7 split reaches the change-point test's 0.001. Record again
// when what the recordings measure changes (the example service, the
// experiment, the history's schema):
//
//	cd engine && go test ./cmd/perfgate -run TestTrendFinds -record-trend
func TestTrendFindsConfirmsAndBisectsAPlantedRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 gates (about 80 s; 4 minutes with -record-trend)")
	}
	// A monorepo: the service in a subdirectory of the repository, as
	// services/api. git runs at the repository's top.
	top := filepath.Join(t.TempDir(), "repo")
	repo := filepath.Join(top, "services", "api")
	if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", exampleService(t), repo).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v\n%s", err, out)
	}
	// The decisive experiment keeps one build per side for every round:
	// the gates' verdicts are on allocations, which no layout moves. One
	// profile round a gate: the confirmations' functions are only checked
	// to come from the allocs profile.
	experiment := decisiveExperiment + "profile_rounds: 1\n"
	if err := os.WriteFile(filepath.Join(repo, "perfgate.yml"), []byte(experiment), 0o644); err != nil {
		t.Fatal(err)
	}
	git := gittest.In(t, top)
	git("init", "-q", "-b", "main")
	var commits []string
	const planted = 7
	for i := 0; i < 17; i++ {
		if i == planted {
			git("apply", "--directory=services/api", filepath.Join(repoRoot(t), "examples", "regressions", "alloc-sprintf.patch"))
		} else if err := os.WriteFile(filepath.Join(repo, "CHANGES"), []byte(fmt.Sprintf("change %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("change %d", i))
		commits = append(commits, git("rev-parse", "HEAD"))
	}

	historyDir := filepath.Join(t.TempDir(), "history")
	if *recordTrend {
		recordTrendHistory(t, git, repo, experiment, commits, planted, historyDir)
	} else {
		replayTrendHistory(t, commits, historyDir)
	}

	// As the Action runs it: in the service's directory, --src absolute
	// and --config relative to it (every confirmation failed on this
	// mix before, issue 21).
	t.Chdir(repo)
	out := filepath.Join(t.TempDir(), "trend")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"trend", "--config", "perfgate.yml", "--src", repo, "--history", historyDir, "--out", out, "--confirm", "--repository", "perfgate/example", "--run-id", "42", "--artifact-name", "perfgate-trend"}, &stdout, &stderr)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("perfgate trend: exit %d", code)
	}
	if keep := os.Getenv("PERFGATE_KEEP_TREND"); keep != "" {
		// For a look at the pages: PERFGATE_KEEP_TREND=/tmp/trend go test -run TestTrend.
		if out, err := exec.Command("cp", "-r", out, keep).CombinedOutput(); err != nil {
			t.Logf("keep the trend output: %v %s", err, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, trend.TrendJSON))
	if err != nil {
		t.Fatal(err)
	}
	var tr trend.Trend
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("trend.json: %v", err)
	}
	if tr.Entries != 14 || tr.Used != 14 {
		t.Errorf("%d entries, %d used; want 14 and 14", tr.Entries, tr.Used)
	}
	var allocs *trend.Step
	for _, s := range tr.Series {
		for i, st := range s.Steps {
			if s.Metric == "allocs" {
				allocs = &s.Steps[i]
			}
			t.Logf("%s on %s: step at %d (%s..%s) %+.3f p=%.4g confirmation %+v", s.Metric, s.MachineDescription, st.Index, st.Before[:7], st.After[:7], st.Magnitude, st.P, st.Confirmation)
		}
	}
	if allocs == nil {
		t.Fatal("no allocs step found")
	}
	// The trace triples a search's allocations; with the order requests
	// in the mix, allocations per request rise by about 60%.
	if allocs.Before != commits[planted-1] || allocs.After != commits[planted+3] || allocs.Direction != trend.Regression || allocs.Magnitude < 0.3 {
		t.Errorf("allocs step %s..%s %s %+.2f; want %s..%s, a regression of more than +30%%", allocs.Before[:7], allocs.After[:7], allocs.Direction, allocs.Magnitude, commits[planted-1][:7], commits[planted+3][:7])
	}
	c := allocs.Confirmation
	if c == nil || c.Status != history.Confirmed || c.Commit != commits[planted] || c.Gates != 3 || len(c.Narrowed) != 0 {
		t.Fatalf("allocs confirmation %+v; want confirmed at the planted commit %s after 3 gates", c, commits[planted][:7])
	}
	if c.Estimate < 0.3 || c.CI[0] <= 0 || c.Outcome != "regression" {
		t.Errorf("confirming gate: estimate %+.2f CI %v outcome %s; want a regression above +30%%", c.Estimate, c.CI, c.Outcome)
	}
	for _, f := range c.Functions {
		if f.Profile != "allocs" {
			t.Errorf("the allocs confirmation lists a %s function: %+v", f.Profile, f)
		}
	}
	// Noise can make a suspected step (p99 latency is noisy on a shared
	// machine), but a paired gate never blames an innocent commit.
	for _, s := range tr.Series {
		for _, st := range s.Steps {
			if c := st.Confirmation; c != nil && c.Status == history.Confirmed && c.Commit != commits[planted] {
				t.Errorf("%s: a step confirmed at %s, which changed nothing", s.Metric, c.Commit[:7])
			}
		}
	}
	openAllocs := false
	for _, o := range tr.Alarm.Open {
		openAllocs = openAllocs || (o.Metric == "allocs" && o.Commit == commits[planted])
	}
	if tr.Alarm.State != trend.AlarmOpen || !openAllocs {
		t.Errorf("alarm %+v; want open, naming the allocs regression", tr.Alarm)
	}
	alarm, err := os.ReadFile(filepath.Join(out, trend.AlarmMD))
	if err != nil || !strings.HasPrefix(string(alarm), trend.Marker("perfgate")+"\n") ||
		!strings.Contains(string(alarm), "gh run download 42 -n perfgate-trend") ||
		!strings.Contains(string(alarm), "https://github.com/perfgate/example/commit/"+commits[planted]) {
		t.Errorf("alarm.md: %v\n%s", err, alarm)
	}
	checkKeptProfiles(t, filepath.Join(out, c.Results))

	// The confirmation is kept: the next night checks nothing again.
	file, err := history.Read(historyDir, "perfgate")
	if err != nil || len(file.Confirmations) == 0 {
		t.Fatalf("history after trend: %v, %d confirmations", err, len(file.Confirmations))
	}
	stdout.Reset()
	stderr.Reset()
	again := filepath.Join(t.TempDir(), "again")
	if code := run(context.Background(), []string{"trend", "--config", filepath.Join(repo, "perfgate.yml"), "--src", repo, "--history", historyDir, "--out", again, "--confirm"}, &stdout, &stderr); code != 0 {
		t.Fatalf("second trend: exit %d\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "paired gate") {
		t.Errorf("the second trend ran gates again:\n%s", stderr.String())
	}
}

// recordTrend makes the trend test record its history with live perfgate
// runs and keep it in testdata, instead of replaying the one kept there.
var recordTrend = flag.Bool("record-trend", false, "the trend test records its 14 nights with live perfgate runs (on a quiet machine, ~2.5 minutes) into testdata/trend-history.jsonl")

const (
	trendHistoryFile = "testdata/trend-history.jsonl"
	trendCommitsFile = "testdata/trend-history.commits.json"
)

// recordTrendHistory records every commit but the planted one and the two
// after it with perfgate run, as mode record does each night, into
// historyDir, and keeps the history and the commits it measured in
// testdata. Nights run 3 windows each (the gates need the experiment's 6
// to reach significance): the same perfgate.yml otherwise, so the same
// history file (its name comes from the file name).
func recordTrendHistory(t *testing.T, git func(...string) string, repo, experiment string, commits []string, planted int, historyDir string) {
	t.Helper()
	recordConfig := filepath.Join(t.TempDir(), "perfgate.yml")
	if err := os.WriteFile(recordConfig, []byte(strings.Replace(experiment, "pairs: 6", "pairs: 3", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range commits {
		if i >= planted && i < planted+3 {
			continue
		}
		git("checkout", "-q", c)
		var stdout, stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "results")
		code := run(context.Background(), []string{"run", "--config", recordConfig, "--src", repo, "--label", c[:7], "--out", out, "--history", historyDir}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("perfgate run of commit %d: exit %d\n%s\n%s", i, code, stdout.String(), stderr.String())
		}
	}
	git("checkout", "-q", "main")
	recorded, err := os.ReadFile(filepath.Join(historyDir, "perfgate.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	shas, err := json.MarshalIndent(commits, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trendHistoryFile, recorded, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trendCommitsFile, append(shas, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s and %s", trendHistoryFile, trendCommitsFile)
}

// replayTrendHistory writes the recorded history into historyDir with
// every night moved from the commit it measured onto this run's commit at
// the same position: this run's SHAs differ (the example service changes,
// commit times differ), its commits' code is the recorded ones'.
func replayTrendHistory(t *testing.T, commits []string, historyDir string) {
	t.Helper()
	var recordedCommits []string
	data, err := os.ReadFile(trendCommitsFile)
	if err == nil {
		err = json.Unmarshal(data, &recordedCommits)
	}
	if err != nil || len(recordedCommits) != len(commits) {
		t.Fatalf("%s: %v, %d commits; want %d (record again: -record-trend)", trendCommitsFile, err, len(recordedCommits), len(commits))
	}
	recorded, err := os.ReadFile(trendHistoryFile)
	if err != nil {
		t.Fatal(err)
	}
	var replayed bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(recorded), []byte("\n")) {
		var entry map[string]json.RawMessage
		var commit, id string
		if err := json.Unmarshal(line, &entry); err != nil || json.Unmarshal(entry["commit"], &commit) != nil || json.Unmarshal(entry["id"], &id) != nil {
			t.Fatalf("%s: not a history entry (%v): %.120s", trendHistoryFile, err, line)
		}
		night := slices.Index(recordedCommits, commit)
		if night < 0 || !strings.HasPrefix(id, commit) {
			t.Fatalf("%s: entry %s measured %s, not one of %s's commits", trendHistoryFile, id, commit, trendCommitsFile)
		}
		sha := commits[night]
		for key, value := range map[string]string{"commit": sha, "id": sha + strings.TrimPrefix(id, commit), "label": sha[:7]} {
			entry[key], _ = json.Marshal(value)
		}
		moved, err := json.Marshal(entry)
		if err != nil {
			t.Fatal(err)
		}
		replayed.Write(append(moved, '\n'))
	}
	if err := os.MkdirAll(historyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(historyDir, "perfgate.jsonl"), replayed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkKeptProfiles: the trend output keeps the confirming gate's results,
// its merged allocation profile among them, which exists when one of the
// gate's head profile runs was valid (results.MergeProfiles). On a loaded
// machine the gate's one profile round can be invalid, and then there is
// no profile to keep: a fresh-clone CI under the stress mode saw it
// (2026-12-07), and the test said the trend had lost it.
func checkKeptProfiles(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Errorf("the confirming gate's report is not in the trend output: %v", err)
		return
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the confirming gate's report.json: %v", err)
	}
	var invalid []string
	for _, r := range rep.Runs {
		for _, p := range r.Profiles {
			if r.Side != "head" || p.Name != "allocs" || p.File == "" {
				continue
			}
			if !r.Valid {
				invalid = append(invalid, r.Dir+": "+strings.Join(r.InvalidReasons, "; "))
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "head.allocs.pb.gz")); err != nil {
				t.Errorf("the confirming gate's profiles are not in the trend output: %v", err)
			}
			return
		}
	}
	t.Logf("the confirming gate has no valid head run with an allocation profile, so no merged profile to keep (invalid: %v)", invalid)
}
