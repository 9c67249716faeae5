package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

func ptr(v float64) *float64 { return &v }

// regressionReport is a report like the demo's: allocations regressed,
// and the live heap kept growing; its verdict, reason and counts are
// verdict.Decide's.
func regressionReport() *report.Report {
	cfg := config.Default()
	cfg.Service.Package = "./cmd/server"
	rep := &report.Report{
		Schema: 1, Complete: true, Seed: 42,
		Command:     []string{"perfgate", "gate", "--config", "examples/perfgate.yml", "--base", "main", "--head", "."},
		Started:     time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Config:      cfg.Report(),
		Environment: report.Environment{CPUModel: "AMD EPYC", CPUs: 2, Kernel: "6.18", GoVersion: "go1.26.8"},
		Build: report.Builds{
			Base: report.Builds{}.Base, Head: report.Builds{}.Head,
		},
		Metrics: []report.Metric{
			{Name: "cpu", Unit: "µs/req", Scale: "relative", Base: 373.7, Head: 381.9, Delta: 0.024, CI: [2]float64{-0.08, 0.153}, CILevel: 0.9805, P: 0.432, Outcome: "inconclusive", Threshold: 0.1, Gates: true, Pairs: 10, Detectable: ptr(0.21), DetectableRange: &[2]float64{0.17, 0.27}},
			{Name: "allocs", Unit: "allocs/req", Scale: "relative", Base: 89.4, Head: 122.6, Delta: 0.37, CI: [2]float64{0.368, 0.372}, CILevel: 0.9805, P: 0.0039, Outcome: "regression", Threshold: 0.02, Gates: true, Pairs: 10, Detectable: ptr(0.001)},
			{Name: "errors", Unit: "ratio", Scale: "absolute", Outcome: "unchanged", Threshold: 0.001, Gates: true, Pairs: 10, CILevel: 0.9805, P: 1, Detectable: ptr(0)},
			{Name: "goroutines", Unit: "goroutines/1k req", Scale: "absolute", Base: 0.02, Head: 0.05, Delta: 0.03, CI: [2]float64{-0.1, 0.2}, CILevel: 0.9805, P: 0.35, Outcome: "unchanged", Threshold: 1, Gates: true, Pairs: 10, Detectable: ptr(0.4)},
			{Name: "heap", Unit: "B/1k req", Scale: "absolute", Base: 310, Head: 80310, Delta: 80000, CI: [2]float64{72000, 88000}, CILevel: 0.9805, P: 0.0039, Outcome: "regression", Threshold: 65536, Gates: true, Pairs: 10, Detectable: ptr(3000)},
			{Name: "latency_p99", Unit: "ms", Scale: "relative", Base: 0.94, Head: 0.99, Delta: 0.041, CI: [2]float64{-0.04, 0.148}, CILevel: 0.9805, P: 0.116, Outcome: "inconclusive", Threshold: 0.1, Pairs: 10},
			{Name: "memory_peak", Unit: "MiB", Scale: "relative", Base: 30.5, Head: 35.5, Delta: 0.164, CI: [2]float64{0.15, 0.18}, CILevel: 0.9805, P: 0.0039, Outcome: "regression", Threshold: 0.1, Pairs: 10, Detectable: ptr(0.02)},
		},
		Functions: []report.Function{
			{Profile: "allocs", Name: "fmt.Sprintf", Kind: "flat", Unit: "allocs/req", Head: 11.03, Delta: 11.03, Status: "new",
				Via: "runtime.slicebytetostring", Caller: "example.com/svc/httpapi.(*Server).handleSearch", CallerLine: 31},
			{Profile: "allocs", Name: "example.com/svc/httpapi.(*Server).handleSearch", Kind: "flat", Unit: "allocs/req", Base: 2, Head: 14.55, Delta: 12.55, Status: "changed",
				Via: "runtime.mapassign_faststr", CallLine: 33},
		},
		Benchstat: []report.BenchRow{{Metric: "allocs/req", Base: 89.44, BaseRange: "0%", Head: 122.6, HeadRange: "0%", Delta: "+37.04%", P: 0, Note: "p=0.000 n=10"}},
		Runs:      sequentialRuns(),
		Warnings:  []string{"GOMAXPROCS=4 (from service.env) is above the CPU limit"},
	}
	rep.Experiment, rep.Config.Experiment = "sequential", "sequential"
	rep.Verdict, rep.Reason, rep.Counts = verdict.Decide(rep.Metrics)
	return rep
}

// sequentialRuns are eleven pairs run one after the other, head's
// allocations 37% above base's; pair 3's head run fell short of the rate,
// so the eleventh pair replaced it.
func sequentialRuns() []report.Run {
	cpuChange := []float64{1.03, 0.98, 1.01, 1.06, 1.02, 0.99, 1.04, 1.02, 1.00, 1.05, 1.03}
	var runs []report.Run
	for i, change := range cpuChange {
		for _, side := range []string{"base", "head"} {
			cpu, allocs := 373.7, 89.4
			if side == "head" {
				cpu, allocs = cpu*change, allocs*1.37
			}
			run := report.Run{Side: side, Pair: i + 1, Order: len(runs) + 1, Valid: true,
				Figures: report.Figures{CPUMicrosPerRequest: cpu, CPUSource: "cgroup", AllocsPerRequest: ptr(allocs)}}
			if i+1 == 3 && side == "head" {
				run.Valid, run.InvalidReasons = false, []string{"achieved rate 280.0/s is below 99% of the target 300/s"}
			}
			runs = append(runs, run)
		}
	}
	return runs
}

func TestMarkdownRegression(t *testing.T) {
	golden(t, "regression.md", Markdown(realReport(t, "regression")))
}

func TestMarkdownHostileStrings(t *testing.T) {
	rep := realReport(t, "regression")
	rep.Functions = append(rep.Functions,
		report.Function{Profile: "allocs", Kind: "flat", Unit: "allocs/req", Status: "new", Delta: 20,
			Name: "evil.`code` | </table><script>alert(1)</script> @octocat #1 [link](http://x.example) **bold**\n## heading\u202Egnp.exe\x00"},
		report.Function{Profile: "cpu", Kind: "flat", Unit: "µs/req", Status: "changed", Delta: 0.5, Name: strings.Repeat("very.long.name/", 40)})
	rep.Warnings = append(rep.Warnings, "<img src=x onerror=alert(1)> @everyone\n- [x] injected")
	// A metric this perfgate does not know shows with the report's own
	// unit, which is untrusted.
	rep.Metrics = append(rep.Metrics, report.Metric{Name: "widgets", Unit: "<script>x</script>/req", Scale: "absolute", Base: 1, Head: 2, Delta: 1, Outcome: "unchanged", Pairs: 10})
	// Source files that would climb out of the repository or end the
	// link, and links whose values are half hostile: only the run's link
	// may be built.
	rep.Build.Head.Module, rep.Build.Head.ModuleDir = "example.com/svc", ""
	rep.Functions[0].File = "example.com/svc/../../../etc/passwd.go"
	rep.Functions[1].File = "example.com/svc/a)b](javascript:alert(1)).go"
	links := Links{ServerURL: "https://github.com", Repository: "acme/search", RunID: "42", ArtifactID: "1 OR 1", ArtifactName: "x; rm -rf ~",
		BaseSHA: "main", HeadSHA: strings.Repeat("b", 40), AcceptLabel: "perfgate:accept\n# x", AcceptedBy: "@everyone"}
	md := MarkdownFor(rep, ReproductionOf(rep), links)
	golden(t, "hostile.md", md)
	if !strings.Contains(md, "[workflow run](https://github.com/acme/search/actions/runs/42)") {
		t.Error("the run's link, from checked values, is missing")
	}
	requireSafe(t, md, []string{"https://github.com/acme/search/actions/runs/42"},
		"x.example) **bold** ## heading", "<img src=x onerror=alert(1)> @everyone - [x] injected")
	for _, bad := range []string{"\x00", "/blob/", "/compare/", "/artifacts/", "rm -rf", "gh run download", "javascript", "passwd", "perfgate:accept", "# x"} {
		if strings.Contains(md, bad) {
			t.Errorf("rendered comment contains %q", bad)
		}
	}
	if strings.Contains(md, strings.Repeat("very.long.name/", 20)) {
		t.Error("a long name was not cut")
	}
}

// TestMarkdownKeepsSentencesWhole: a hint's advice and the verdict's
// reason run past the name limit and must not lose their end; only
// something absurdly long is cut.
func TestMarkdownKeepsSentencesWhole(t *testing.T) {
	rep := regressionReport()
	advice := strings.Repeat("measured detail, ", 15) + "so raise resources.cpu"
	rep.Hints = []report.Hint{{Rule: "cpu-throttling", Message: advice, Evidence: "cpu.stat"}}
	rep.Reason = strings.Repeat("allocs +37% (CI +36% to +38%), ", 10) + "end of reason"
	rep.Verdict = report.Invalid // a reason the metrics' table does not already give
	md := Markdown(rep)
	for _, want := range []string{"raise `resources.cpu`", "end of reason"} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lost the end of a sentence: %q missing", want)
		}
	}
	rep.Hints[0].Message = strings.Repeat("z", 5000)
	if md := Markdown(rep); strings.Contains(md, strings.Repeat("z", maxProse+1)) || !strings.Contains(md, strings.Repeat("z", maxProse)+"…") {
		t.Error("a 5000-character hint was not cut at maxProse")
	}
}

func TestMarkdownAllInvalid(t *testing.T) {
	rep := realReport(t, "invalid")
	if rep.Verdict != report.Invalid {
		t.Fatalf("the invalid run's verdict is %s; record it again (scripts/goldens.sh invalid)", rep.Verdict)
	}
	golden(t, "invalid.md", Markdown(rep))
}

func TestMarkdownHugeReportDropsWholeSections(t *testing.T) {
	rep := regressionReport()
	for i := 0; i < 3000; i++ {
		rep.Runs = append(rep.Runs, report.Run{Side: "base", Pair: i, InvalidReasons: []string{strings.Repeat("reason ", 20)}})
		rep.Warnings = append(rep.Warnings, strings.Repeat("warning ", 10))
	}
	md := Markdown(rep)
	if len(md) > MaxComment {
		t.Fatalf("comment is %d characters, above %d", len(md), MaxComment)
	}
	if !strings.HasPrefix(md, Marker+"\n") || !strings.Contains(md, "perfgate: regression") || !strings.Contains(md, "| Allocations per request |") {
		t.Error("the verdict and the metrics table must survive")
	}
	if !strings.Contains(md, "Left out to fit GitHub's comment size: ") || !strings.Contains(md, "invalid runs") {
		t.Errorf("the comment must say what was dropped:\n%s", md[len(md)-300:])
	}
	// Dropping is by whole section: no half table, no open <details>.
	if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
		t.Error("unbalanced <details>")
	}
}

func TestReadReportRejectsHostileJSON(t *testing.T) {
	good, _ := os.ReadFile("testdata/minimal.json")
	if _, err := ReadReport(bytes.NewReader(good)); err != nil {
		t.Fatalf("minimal report rejected: %v", err)
	}
	for name, body := range map[string]string{
		"wrong type":       `{"schema": 1, "verdict": "pass", "runs": "lots"}`,
		"unknown schema":   `{"schema": 99, "verdict": "pass"}`,
		"unknown verdict":  `{"schema": 1, "verdict": "<script>"}`,
		"not JSON":         `<html>`,
		"trailing data":    `{"schema": 1, "verdict": "pass"} {"schema": 1}`,
		"too many metrics": `{"schema": 1, "verdict": "pass", "metrics": [` + strings.Repeat(`{},`, 1000) + `{}]}`,
	} {
		if _, err := ReadReport(strings.NewReader(body)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	huge := `{"schema": 1, "verdict": "pass", "reason": "` + strings.Repeat("x", maxReportBytes) + `"}`
	if _, err := ReadReport(strings.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge report: %v", err)
	}
	// A long string inside the limit renders cut, not whole.
	long, err := ReadReport(strings.NewReader(`{"schema": 1, "verdict": "pass", "reason": "` + strings.Repeat("y", 100000) + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if md := Markdown(long); len(md) > 5000 {
		t.Errorf("a 100k-character reason rendered into %d characters", len(md))
	}
}
