package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestRunRecordsOneTree is the nightly path: perfgate run measures the
// example service alone, six runs as side head, and leaves the same
// results directory a gate leaves for that side.
func TestRunRecordsOneTree(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	cfg := writeConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi"))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--config", cfg, "--src", exampleService(t), "--label", "main", "--out", out}, &stdout, &stderr)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report.json does not parse: %v", err)
	}
	if code != 0 || rep.Verdict != report.Pass || !rep.Complete {
		t.Fatalf("exit %d, verdict %s (%s), complete %v; want 0, pass, complete", code, rep.Verdict, rep.Reason, rep.Complete)
	}
	if rep.Mode != "record" || rep.Label != "main" || rep.Reason != "recorded 6 valid runs of main; nothing compared (mode record)" {
		t.Errorf("mode %q, label %q, reason %q", rep.Mode, rep.Label, rep.Reason)
	}
	if len(rep.Runs) != 6 {
		t.Fatalf("%d runs, want 6", len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if r.Side != "head" || !r.Valid {
			t.Errorf("run %d: side %s, valid %v %v; want valid head runs", r.Pair, r.Side, r.Valid, r.InvalidReasons)
		}
		if _, err := os.Stat(filepath.Join(out, r.Dir, "run.json")); err != nil {
			t.Errorf("run %d was not recorded on disk: %v", r.Pair, err)
		}
	}
	medians := map[string]report.Median{}
	for _, m := range rep.Summary {
		medians[m.Name] = m
	}
	for _, name := range []string{"cpu", "allocs", "bytes", "latency_p50", "latency_p99", "throughput", "errors"} {
		if m, ok := medians[name]; !ok || m.HeadRuns != 6 || m.BaseRuns != 0 || (name != "errors" && m.Head <= 0) {
			t.Errorf("median %s: %+v (present %v), want head's over 6 runs", name, m, ok)
		}
	}
	if len(rep.Metrics) != 0 || len(rep.Functions) != 0 || len(rep.Benchstat) != 0 || rep.Build.Head.Path == "" || rep.Build.Base.Path != "" {
		t.Errorf("a recording compared something or built a base: %d metrics, %d functions, %d benchstat rows, build %+v",
			len(rep.Metrics), len(rep.Functions), len(rep.Benchstat), rep.Build)
	}

	parseProfile(t, filepath.Join(out, "head.cpu.pb.gz"))
	parseProfile(t, filepath.Join(out, "head.allocs.pb.gz"))
	if head := readBench(t, filepath.Join(out, "bench", "head.txt")); len(head) != 6 {
		t.Errorf("bench/head.txt has %d results, want 6", len(head))
	}
	for _, absent := range []string{"base.cpu.pb.gz", "bench/base.txt", "base"} {
		if _, err := os.Stat(filepath.Join(out, absent)); err == nil {
			t.Errorf("a recording wrote %s", absent)
		}
	}

	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.HasPrefix(string(md), "<!-- perfgate:report -->\n### ✅ perfgate: recorded main\n") || strings.Contains(string(md), "regressed") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if page, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(page), "perfgate: recorded main") {
		t.Errorf("report.html missing or does not say recorded: %v", err)
	}
	var rendered, renderErr strings.Builder
	if code := run(context.Background(), []string{"report", "--in", filepath.Join(out, "report.json"), "--format", "md"}, &rendered, &renderErr); code != 0 || rendered.String() != string(md) {
		t.Errorf("perfgate report: exit %d, same as report.md: %v\n%s", code, rendered.String() == string(md), renderErr.String())
	}
	if !strings.Contains(stdout.String(), "medians of main over its valid runs") || !strings.Contains(stdout.String(), "verdict: pass") {
		t.Errorf("no medians or verdict printed:\n%s", stdout.String())
	}
	if l := leftovers(t); len(l) > 0 {
		t.Errorf("left behind after a recording: %v", l)
	}
}
