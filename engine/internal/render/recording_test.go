package render

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// recordingReport is a nightly recording of main: two valid runs and one
// invalid, medians of head only, a counter hint and a warning.
func recordingReport() *report.Report {
	cfg := config.Default()
	cfg.Service.Package = "./cmd/server"
	cfg.Pairs = 3
	rep := &report.Report{
		Schema: 1, Verdict: report.Pass, Mode: report.ModeRecord, Label: "main", Complete: true,
		Reason:  "recorded 2 valid runs of main (1 invalid: achieved rate 280.0/s is below 99% of the target 300/s ×1); nothing compared (mode record)",
		Command: []string{"perfgate", "run", "--config", "examples/perfgate.yml", "--src", ".", "--label", "main", "--out", "results"},
		Started: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC),
		Config:  cfg.Report(),
		Environment: report.Environment{CPUModel: "AMD EPYC", CPUs: 2, Kernel: "6.18", GoVersion: "go1.26.8",
			TargetEnvironment: report.TargetEnvironment{Target: "local", Confinement: "cgroup v1", GOMAXPROCS: 1}},
		Summary: []report.Median{
			{Name: "cpu", Unit: "µs/req", Head: 373.7, HeadRuns: 2},
			{Name: "allocs", Unit: "allocs/req", Head: 89.44, HeadRuns: 2},
			{Name: "bytes", Unit: "B/req", Head: 21034.5, HeadRuns: 2},
			{Name: "latency_p50", Unit: "ms", Head: 0.52, HeadRuns: 2},
			{Name: "latency_p99", Unit: "ms", Head: 0.94, HeadRuns: 2},
			{Name: "throughput", Unit: "req/s", Head: 499.8, HeadRuns: 2},
			{Name: "errors", Unit: "ratio", Head: 0.0004, HeadRuns: 2},
		},
		Runs: []report.Run{
			{Side: "head", Pair: 1, Valid: true},
			{Side: "head", Pair: 2, InvalidReasons: []string{"achieved rate 280.0/s is below 99% of the target 300/s"}},
			{Side: "head", Pair: 3, Valid: true},
		},
		Hints:    []report.Hint{{Rule: "cpu-throttling", Message: "the service was CPU-throttled in 35% of its scheduling periods", Evidence: "cgroup cpu.stat"}},
		Warnings: []string{"GOMAXPROCS=4 (from service.env) is above the CPU limit"},
	}
	rep.Build.Head.Revision = "0123456789abcdef"
	return rep
}

func TestMarkdownRecording(t *testing.T) {
	md := Markdown(realReport(t, "recording"))
	golden(t, "recording.md", md)
	for _, unwanted := range []string{"regressed", "improved", "| base |", "confidence interval", "--seed"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("a recording's comment shows %q, which only a comparison has", unwanted)
		}
	}
}

// TestMarkdownRecordingEscapesTheLabel: a report.json may be hostile, and
// its label reaches the title.
func TestMarkdownRecordingEscapesTheLabel(t *testing.T) {
	rep := recordingReport()
	rep.Label = "<img src=x> @octocat"
	md := Markdown(rep)
	requireSafe(t, md, nil, "recorded <img src=x> @octocat")
}

func TestMarkdownFailedRecording(t *testing.T) {
	rep := recordingReport()
	rep.Verdict, rep.Reason, rep.Summary = report.Invalid, "invalid measurement: only 0 of 3 runs of main are valid; OOM-killed (memory limit 8Mi) ×3", nil
	md := Markdown(rep)
	if !strings.Contains(md, "### ⚠️ perfgate: recording main: invalid") || strings.Contains(md, "recorded main") {
		t.Errorf("a failed recording must say so in its title:\n%s", md)
	}
}

func TestHTMLRecording(t *testing.T) {
	page, err := HTML(recordingReport())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>perfgate: recorded main</title>", `<h1 class="pass">perfgate: recorded main</h1>`, `<table id="medians">`, "<td>Allocations per request</td><td>89.44 allocs/req</td><td>2</td>", "<td>Error rate</td><td>0.04%</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "pairs ×") {
		t.Error("a recording's page speaks of pairs")
	}
}

func TestReadReportChecksTheMode(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"schema": 1, "verdict": "pass"}`:                                    true, // before mode existed: a gate
		`{"schema": 1, "verdict": "pass", "mode": "gate"}`:                    true,
		`{"schema": 1, "verdict": "pass", "mode": "record", "label": "main"}`: true,
		`{"schema": 1, "verdict": "pass", "mode": "<b>"}`:                     false,
	} {
		if _, err := ReadReport(strings.NewReader(body)); (err == nil) != ok {
			t.Errorf("%s: error %v", body, err)
		}
	}
}
