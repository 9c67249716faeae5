package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestSIGTERMMidRunCleansUpAndKeepsResults stops a real perfgate process in
// the middle of a run: the service, its process group and its cgroup must
// be gone, and report.json must hold what was measured.
func TestSIGTERMMidRunCleansUpAndKeepsResults(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "perfgate")
	// -trimpath, as the Action builds perfgate and CI builds these tests:
	// the compiled packages are then cached (client-go's take ~40 s cold).
	if out, err := exec.Command("go", "build", "-trimpath", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build perfgate: %v\n%s", err, out)
	}
	cfg := writeConfig(t, strings.Replace(fmt.Sprintf(shortExperiment, "30s", "256Mi"), "duration: 2s", "duration: 30s", 1))
	out := filepath.Join(t.TempDir(), "results")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "gate", "--config", cfg, "--base-dir", exampleService(t), "--head", regressedHead(t, ""), "--out", out)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the first run's service is up and being loaded.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(out, "base", "run-01", "stderr.log")); err == nil {
			break
		}
		if _, err := os.Stat(filepath.Join(out, "head", "run-01", "stderr.log")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no run started:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	if len(leftovers(t, cmd.Process.Pid)) == 0 {
		t.Fatal("the service is not running at the moment of the signal; the test would prove nothing")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("perfgate exited: %v", err) // its exit code is checked below
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("perfgate did not exit within 30s of SIGTERM")
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit code %d after SIGTERM, want 3", code)
	}
	if l := leftovers(t, cmd.Process.Pid); len(l) > 0 {
		t.Errorf("left behind after SIGTERM: %v", l)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	// The interrupted duet round is kept: both its runs, marked invalid.
	if rep.Complete || rep.Verdict != "error" || !strings.Contains(rep.Reason, "interrupted") || len(rep.Runs) != 2 {
		t.Errorf("report after SIGTERM: verdict %q reason %q complete %v runs %d", rep.Verdict, rep.Reason, rep.Complete, len(rep.Runs))
	}
	for _, r := range rep.Runs {
		if r.Valid || len(r.InvalidReasons) == 0 || !strings.Contains(r.InvalidReasons[0], "interrupted") {
			t.Errorf("run %s/%d after SIGTERM: valid %v, reasons %v; want invalid, interrupted", r.Side, r.Pair, r.Valid, r.InvalidReasons)
		}
	}
}
