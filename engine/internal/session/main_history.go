package session

import (
	"fmt"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
)

// readMainHistory reads main's nightly history for the gate (--history):
// a gate never fails for it, so a history that cannot be read is a
// warning.
func (g *invocation) readMainHistory(dir, configPath, head string) {
	if dir == "" {
		return
	}
	name := history.ConfigNameIn(configPath, head)
	f, err := history.Read(dir, name)
	if err != nil {
		g.warn(fmt.Sprintf("main's history at %s could not be read: %v", dir, err))
		return
	}
	for _, w := range f.Warnings {
		g.warn("main's history: " + w)
	}
	g.mainHistory = f
	g.mainHistoryName = name
}

// concludeMainHistory shows where main stands beside the gate and warns
// when a gating threshold is finer than what this machine's recorded
// spread lets max_pairs pairs resolve.
func (g *invocation) concludeMainHistory() {
	if g.mainHistory == nil {
		return
	}
	machine := history.FingerprintOf(g.rep.Environment, "").Machine
	view := history.MainView(g.mainHistoryName, g.mainHistory.Entries, machine, g.cfg.Gate, max(g.cfg.Pairs, g.cfg.MaxPairs))
	g.rep.MainHistory = view
	if view == nil {
		return
	}
	for _, mm := range view.Metrics {
		m, ok := metric.Lookup(mm.Name)
		if !ok || !mm.SameMachine || mm.Resolvable == 0 || m.Gate == nil {
			continue
		}
		if threshold := m.Threshold(g.cfg.Gate); threshold > 0 && threshold < mm.Resolvable {
			g.warn(fmt.Sprintf("%s is %s, but main's nightly runs on this machine vary by %s from run to run, so a gate of at most %d pairs resolves only about %s: raise pairs.max or %s, or quiet the runner (docs/trends.md)",
				m.Gate.Key, metric.Percent(threshold), metric.Percent(mm.RunSpread), max(g.cfg.Pairs, g.cfg.MaxPairs), metric.Percent(mm.Resolvable), m.Gate.Key))
		}
	}
}
