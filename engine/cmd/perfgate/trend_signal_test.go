package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/trend"
)

// trendHelperEnv makes this test binary a perfgate process running
// `perfgate trend --confirm` whose gates are stand-ins: the first
// confirms at once, the next one runs until the process is signalled
// (the paired gate a job's timeout cuts).
const trendHelperEnv = "PERFGATE_TEST_TREND_ARGS"

// stallingGates confirms the first step at once and stalls on the next.
type stallingGates struct{ ran int }

func (s *stallingGates) Commits(_ context.Context, _, after string) ([]string, error) {
	return []string{after}, nil
}

func (s *stallingGates) Gate(ctx context.Context, _, _, _ string) (*report.Report, error) {
	s.ran++
	if s.ran > 1 {
		<-ctx.Done()
		return &report.Report{Verdict: report.Error, Reason: "interrupted"}, ctx.Err()
	}
	up := func(name string) report.Metric {
		return report.Metric{Name: name, Outcome: report.Regression, Delta: 0.3, CI: [2]float64{0.25, 0.35}, CILevel: 0.99}
	}
	return &report.Report{Verdict: report.Regression, Metrics: []report.Metric{up("cpu"), up("allocs")}}, nil
}

// TestTrendHelperProcess is the perfgate process of the tests below; it
// does nothing when run as a test.
func TestTrendHelperProcess(t *testing.T) {
	args := os.Getenv(trendHelperEnv)
	if args == "" {
		t.Skip("the perfgate process of TestTrendKeepsConfirmationsWhenSignalled")
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	confirmWith = func(trend.Checkout) trend.Checker { return &stallingGates{} }
	os.Exit(runUntilSignalled(argv, os.Stdout, os.Stderr))
}

// TestTrendKeepsConfirmationsWhenSignalled cuts a real perfgate trend
// process in the middle of its second confirming gate, as a job's timeout
// or a cancellation does: SIGTERM (the Action passes the runner's SIGINT
// and SIGTERM on as one SIGTERM), or SIGKILL when the grace period is
// over. The confirmation finished before must be in history-records.jsonl
// (which the Action uploads) the moment it is made, and after SIGTERM in
// the history too, with the interrupted step left unchecked rather than
// recorded as a failed attempt, and the exit must say the run is not
// whole.
func TestTrendKeepsConfirmationsWhenSignalled(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			src := t.TempDir()
			cfg := filepath.Join(src, "perfgate.yml")
			if err := os.WriteFile(cfg, []byte(fmt.Sprintf(shortExperiment, "30s", "256Mi")), 0o644); err != nil {
				t.Fatal(err)
			}
			dir, out := t.TempDir(), filepath.Join(t.TempDir(), "trend")
			config := history.ConfigNameIn(cfg, src)
			if _, _, err := history.Add(dir, config, history.DefaultKeep, twoStepHistory(config)...); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestTrendHelperProcess$")
			argv, err := json.Marshal([]string{"trend", "--config", cfg, "--src", src, "--history", dir, "--out", out, "--confirm", "--budget", "0"})
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(os.Environ(), trendHelperEnv+"="+string(argv))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			records := filepath.Join(out, trend.RecordsJSONL)
			deadline := time.Now().Add(2 * time.Minute)
			for len(confirmationsIn(t, records)) == 0 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait() // its output is what the failure shows
					t.Fatalf("no confirmation in %s while the second gate runs:\n%s\n%s", records, stdout.String(), stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// An exit error is expected: ProcessState says which, below.
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("perfgate trend did not exit within 30s of %v", sig)
			}
			t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			kept := confirmationsIn(t, records)
			if len(kept) != 1 || kept[0].Status != history.Confirmed {
				t.Fatalf("history-records.jsonl after %v holds %+v; want the one confirmation finished before it", sig, kept)
			}
			if sig == syscall.SIGKILL {
				return
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInfra {
				t.Errorf("exit code %d after SIGTERM, want %d: an interrupted trend is not a whole one", code, exitInfra)
			}
			file, err := history.Read(dir, config)
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Confirmations) != 1 || file.Confirmations[0].ID != kept[0].ID {
				t.Errorf("the history holds confirmations %+v; want only %s (the interrupted step unchecked, not failed)", file.Confirmations, kept[0].ID)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say the trend was interrupted:\n%s", stderr.String())
			}
		})
	}
}

// twoStepHistory is 24 nights of one machine in which allocations step
// up by 30% at night 8 and CPU at night 16: two steps, two gates.
func twoStepHistory(config string) []any {
	var records []any
	for i := 0; i < 24; i++ {
		allocs, cpu := 100.0, 40.0
		if i >= 8 {
			allocs = 130
		}
		if i >= 16 {
			cpu = 52
		}
		wobble := 1 + 0.002*float64(i%3-1)
		commit := fmt.Sprintf("%040x", i+1)
		records = append(records, history.Entry{
			Schema: history.Schema, Kind: history.KindEntry, ID: fmt.Sprintf("%s@%d", commit, i), Config: config, Commit: commit, Label: commit[:7],
			Time: time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, i), Verdict: report.Pass, Runs: 6,
			Fingerprint: history.Fingerprint{Machine: "0000000000a1", CPUModel: "CPU a1", CPUs: 4, Target: "local", Confinement: "cgroup v2", CPUMillicores: 1000},
			Metrics: map[string]history.Summary{
				"cpu":    {Unit: "µs/req", Median: cpu * wobble, Low: cpu - 1, High: cpu + 1, N: 6},
				"allocs": {Unit: "allocs/req", Median: allocs * wobble, Low: allocs - 1, High: allocs + 1, N: 6},
			},
		})
	}
	return records
}

// confirmationsIn reads history-records.jsonl's whole lines.
func confirmationsIn(t *testing.T, path string) []history.Confirmation {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var confs []history.Confirmation
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var c history.Confirmation
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			continue // a line being written
		}
		confs = append(confs, c)
	}
	return confs
}
