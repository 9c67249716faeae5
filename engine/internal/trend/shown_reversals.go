package trend

import (
	"fmt"
	"sort"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// gateUse is a paired gate this trend ran, and the machines of the series
// whose steps it confirmed (a machine-dependent metric's result speaks
// for the machine it ran on).
type gateUse struct {
	before, after string
	confirmed     history.Confirmation // the step's confirmation that ran it first
	machines      map[string]bool
}

// shownReversals are confirmations of reversals that a paired gate showed
// although the nightly series did not step: a gate run to confirm one
// metric's step compares every gating metric, and when it finds an
// improvement of a metric whose confirmed regression is still open, later
// in the history than that regression, the reversal is confirmed by the
// same evidence as any step, a paired gate. Without them a reversal whose
// nightly series is too short or too borderline to test (a bump with
// few nights before it: docs/trends-detection.md) keeps the alarm open
// after the gate has shown it gone.
func shownReversals(gates []gateUse, reports map[[2]string]*report.Report, open []history.Confirmation, recorded map[string]time.Time, known map[string]history.Confirmation) []history.Confirmation {
	var shown []history.Confirmation
	for _, g := range gates {
		rep := reports[[2]string{g.before, g.after}]
		if rep == nil || rep.Verdict == report.Invalid || rep.Verdict == report.Error {
			continue
		}
		for _, r := range open {
			if r.Machine != "" && !g.machines[r.Machine] {
				continue
			}
			if after, ok := recorded[g.after]; !ok || !after.After(recorded[r.Commit]) {
				continue // not after the regression
			}
			id := history.ConfirmationID(r.Metric, r.Machine, g.before, g.after)
			if _, done := known[id]; done {
				continue
			}
			for _, m := range rep.Metrics {
				if m.Name != r.Metric || m.Outcome != report.Improvement {
					continue
				}
				c := history.Confirmation{
					Schema: history.Schema, Kind: history.KindConfirmation, ID: id, Config: g.confirmed.Config,
					Metric: r.Metric, Machine: r.Machine, Before: g.before, After: g.after, Time: g.confirmed.Time,
					Status: history.Confirmed, Commit: g.after, Estimate: m.Delta, CI: m.CI, CILevel: m.CILevel,
					Outcome: report.Improvement, Gates: 0, Results: g.confirmed.Results,
					Reason: history.Clean(fmt.Sprintf("shown by the paired gate of %s and %s that confirmed the %s step (not bisected for %s)", short(g.before), short(g.after), g.confirmed.Metric, r.Metric), history.MaxText),
				}
				known[id] = c
				shown = append(shown, c)
			}
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].ID < shown[j].ID })
	return shown
}

// used adds the confirmed step's gate (its whole range) to gates, or the
// series' machine to the gate already there.
func used(gates []gateUse, conf history.Confirmation, machine string) []gateUse {
	for i := range gates {
		if gates[i].before == conf.Before && gates[i].after == conf.After {
			gates[i].machines[machine] = true
			return gates
		}
	}
	return append(gates, gateUse{before: conf.Before, after: conf.After, confirmed: conf, machines: map[string]bool{machine: true}})
}

// recordedAt is when each commit was last recorded, from the series'
// points: the order the history saw the commits in.
func recordedAt(series []Series) map[string]time.Time {
	at := map[string]time.Time{}
	for _, s := range series {
		for _, p := range s.Points {
			if p.Time.After(at[p.Commit]) {
				at[p.Commit] = p.Time
			}
		}
	}
	return at
}
