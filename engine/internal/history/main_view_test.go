package history

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestMainViewPrefersThisMachineAndKeepsTheLast30(t *testing.T) {
	var entries []Entry
	for i := 0; i < 40; i++ {
		e := entry(i)
		e.Fingerprint.Machine = "m1"
		if i%4 == 3 {
			e.Fingerprint.Machine = "m2"
		}
		e.Metrics["allocs"] = Summary{Unit: "allocs/req", Median: 100, N: 6}
		e.Metrics["cpu"] = Summary{Unit: "µs/req", Median: 40, MAD: 0.8, N: 6}
		entries = append(entries, e)
	}
	bad := entry(99)
	bad.Verdict = report.Invalid
	entries = append(entries, bad)
	gate := config.Gate{CPU: 0.02, Allocs: 0.02, Alpha: 0.05}

	view := MainView("perfgate", entries, "m1", gate, 20)
	if view == nil || view.Entries != 40 {
		t.Fatalf("view %+v; want 40 valid entries", view)
	}
	byName := map[string]report.MainMetric{}
	for _, m := range view.Metrics {
		byName[m.Name] = m
	}
	cpu, allocs := byName["cpu"], byName["allocs"]
	if len(cpu.Medians) != 30 || !cpu.SameMachine || cpu.Commits[29] != entry(38).Commit {
		t.Errorf("cpu: %d medians, same machine %v, last %s; want the last 30 of m1 (ending at entry 38)", len(cpu.Medians), cpu.SameMachine, cpu.Commits[len(cpu.Commits)-1])
	}
	if want := 1.4826 * 0.8 / 40; cpu.RunSpread < want-1e-9 || cpu.RunSpread > want+1e-9 || cpu.Resolvable != Resolvable(want, 20, 0.05) {
		t.Errorf("cpu spread %v resolvable %v", cpu.RunSpread, cpu.Resolvable)
	}
	if allocs.Commits[len(allocs.Commits)-1] != entry(39).Commit {
		t.Errorf("allocs are portable: the last entry (on m2) belongs in it")
	}
	if _, ok := byName["latency_p99"]; ok {
		t.Error("latency does not gate here but is shown")
	}

	elsewhere := MainView("perfgate", entries, "m9", gate, 20)
	for _, m := range elsewhere.Metrics {
		if m.Name == "cpu" && (m.SameMachine || m.Commits[len(m.Commits)-1] != entry(39).Commit) {
			t.Errorf("on an unknown machine cpu comes from the latest entry's machine, marked as another: %+v", m)
		}
	}
	if MainView("perfgate", []Entry{bad}, "m1", gate, 20) != nil {
		t.Error("a history of invalid entries made a view")
	}
}
