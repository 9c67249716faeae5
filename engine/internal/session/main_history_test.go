package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestGateShowsMainsHistoryAndWarnsOfAFineThreshold: a gate given main's
// history reports its nightly medians on this machine, and warns that
// gate.cpu is finer than main's recorded run-to-run spread lets a gate of
// this many pairs resolve.
func TestGateShowsMainsHistoryAndWarnsOfAFineThreshold(t *testing.T) {
	fake := func() *targettest.Fake {
		return &targettest.Fake{CPUPerRequest: map[string]time.Duration{experiment.Base: 100 * time.Microsecond, experiment.Head: 100 * time.Microsecond}}
	}
	first, _ := gateOnFake(t, fake(), 2)
	machine := history.FingerprintOf(first.Environment, "").Machine

	dir := t.TempDir()
	var entries []any
	for i := 0; i < 35; i++ {
		commit := fmt.Sprintf("%040x", i+1)
		entries = append(entries, history.Entry{Schema: history.Schema, Kind: history.KindEntry, ID: commit + "@" + fmt.Sprint(i), Config: "perfgate", Commit: commit,
			Time: time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, i), Verdict: report.Pass, Fingerprint: history.Fingerprint{Machine: machine},
			Metrics: map[string]history.Summary{"cpu": {Unit: "µs/req", Median: 100, Low: 80, High: 120, MAD: 10, N: 6}}})
	}
	if _, _, err := history.Add(dir, "perfgate", history.DefaultKeep, entries...); err != nil {
		t.Fatal(err)
	}
	rep, _ := gateOnFake(t, fake(), 2, func(g *invocation) {
		g.readMainHistory(dir, filepath.Join(t.TempDir(), "perfgate.yml"), ".")
	})
	h := rep.MainHistory
	if h == nil || h.Config != "perfgate" || h.Entries != 35 {
		t.Fatalf("main_history %+v; want the 35 entries of perfgate", h)
	}
	var cpu *report.MainMetric
	for i := range h.Metrics {
		if h.Metrics[i].Name == "cpu" {
			cpu = &h.Metrics[i]
		}
	}
	if cpu == nil || len(cpu.Medians) != 30 || !cpu.SameMachine || cpu.Resolvable <= 0.1 {
		t.Fatalf("cpu %+v; want the last 30 medians of this machine and a coarse resolvable change", cpu)
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.HasPrefix(w, "gate.cpu is ") && strings.Contains(w, "resolves only about")
	}
	if !warned {
		t.Errorf("no warning that gate.cpu is finer than this machine resolves: %q", rep.Warnings)
	}
}
