package history

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// testdata/recording.json is a real `perfgate run` of the example service
// (decisive-experiment.yml, six runs).
func readRecording(t *testing.T) *report.Report {
	t.Helper()
	data, err := os.ReadFile("testdata/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

func TestFromReportSummarisesEveryMeasuredMetric(t *testing.T) {
	rep := readRecording(t)
	e, err := FromReport(rep, Meta{Config: "perfgate", Commit: "0123456789abcdef0123456789abcdef01234567", RunnerImage: "ubuntu24 20261117.1.0", Artifact: &Artifact{Name: "perfgate-results", ID: 9}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Runs != 6 || e.Verdict != report.Pass || e.Kind != KindEntry || e.Schema != Schema || !strings.HasPrefix(e.ID, e.Commit+"@") {
		t.Errorf("entry header %+v", e)
	}
	for _, name := range []string{"cpu", "allocs", "bytes", "latency_p50", "latency_p99", "throughput", "errors"} {
		s, ok := e.Metrics[name]
		if !ok || s.N != 6 || s.Low > s.Median || s.Median > s.High || s.MAD < 0 || s.Unit == "" {
			t.Errorf("%s: %+v (present %v)", name, s, ok)
		}
	}
	f := e.Fingerprint
	if f.CPUModel != rep.Environment.CPUModel || f.CPUs != rep.Environment.CPUs || f.RunnerImage != "ubuntu24 20261117.1.0" || len(f.Machine) != 12 {
		t.Errorf("fingerprint %+v", f)
	}
	// The machine key ignores what hosted runners change every week.
	other := f
	other.Kernel, other.GoVersion, other.RunnerImage, other.OS = "7.0", "go1.27", "ubuntu26", "other"
	if MachineKey(other) != f.Machine {
		t.Error("the machine key depends on the kernel, Go version, OS or image")
	}
	other.CPUMillicores++
	if MachineKey(other) == f.Machine {
		t.Error("the machine key ignores the CPU limit")
	}
}

func TestFromReportRefusesAGateAndAnUnknownCommit(t *testing.T) {
	rep := readRecording(t)
	rep.Build.Head.Revision = ""
	if _, err := FromReport(rep, Meta{Config: "perfgate"}); err == nil || !strings.Contains(err.Error(), "--commit") {
		t.Errorf("no commit: %v", err)
	}
	rep.Mode = report.ModeGate
	if _, err := FromReport(rep, Meta{Config: "perfgate", Commit: "abc"}); err == nil || !strings.Contains(err.Error(), "not a recording") {
		t.Errorf("a gate: %v", err)
	}
}
