package trend

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Gater runs one paired gate of two commits (base before, head after),
// writing its results under out, and returns its report. The real one is
// session.Gate on worktrees of the two commits (gater.go).
type Gater func(ctx context.Context, before, after, out string) (*report.Report, error)

// Commits lists the commits after before up to and including after, in
// order: the range a step's culprit is in.
type Commits func(ctx context.Context, before, after string) ([]string, error)

// confirmer checks suspected steps with paired gates.
type confirmer struct {
	gate    Gater
	commits Commits
	// budget is how many gates bisection may run beyond the confirming one.
	budget int
	out    string
	config string
	now    func() time.Time
	// gates are the reports of the gates already run, by base and head:
	// steps of several metrics in one range share their gates.
	gates map[[2]string]*report.Report
}

// gateOnce runs the paired gate of base and head, or returns the report
// of the one this trend already ran.
func (c *confirmer) gateOnce(ctx context.Context, base, head string) (*report.Report, string, error) {
	dir := filepath.Join("confirm", short(base)+"-"+short(head))
	if rep, ok := c.gates[[2]string{base, head}]; ok {
		return rep, dir, nil
	}
	rep, err := c.gate(ctx, base, head, filepath.Join(c.out, dir))
	if rep != nil {
		if c.gates == nil {
			c.gates = map[[2]string]*report.Report{}
		}
		c.gates[[2]string{base, head}] = rep
	}
	return rep, dir, err
}

// confirmationID names a step by what identifies it across nights.
func confirmationID(s Series, st Step) string {
	return history.ConfirmationID(s.Metric, s.Machine, st.Before, st.After)
}

// confirm runs the paired gate of the step's two commits and, when it
// shows the step and the range holds several commits, bisects it.
func (c *confirmer) confirm(ctx context.Context, s Series, st Step) history.Confirmation {
	conf := history.Confirmation{
		Schema: history.Schema, Kind: history.KindConfirmation, ID: confirmationID(s, st), Config: c.config,
		Metric: s.Metric, Machine: s.Machine, Before: st.Before, After: st.After, Time: c.now().UTC(),
	}
	m, _ := metric.Lookup(s.Metric)
	if m == nil || !m.Compared() {
		conf.Status, conf.Reason = history.Failed, fmt.Sprintf("%s is not compared pair by pair, so a paired gate cannot confirm its step; look at the entries' artifacts", s.Metric)
		return conf
	}
	if st.Before == st.After {
		conf.Status, conf.Reason = history.NotConfirmed, "both sides of the step are the same commit: the step is the machine's, not the code's"
		return conf
	}
	commits, err := c.commits(ctx, st.Before, st.After)
	if err != nil {
		conf.Status, conf.Reason = history.Failed, err.Error()
		return conf
	}
	want := report.Regression
	if st.Direction == Improvement {
		want = report.Improvement
	}
	var dir string
	shows := func(base, head string) (bool, *report.Metric, *report.Report, error) {
		conf.Gates++
		rep, d, err := c.gateOnce(ctx, base, head)
		dir = d
		if err != nil && rep == nil {
			return false, nil, nil, fmt.Errorf("the paired gate of %s and %s failed: %w", short(base), short(head), err)
		}
		if rep.Verdict == report.Invalid || rep.Verdict == report.Error {
			return false, nil, rep, fmt.Errorf("the paired gate of %s and %s is %s: %s", short(base), short(head), rep.Verdict, rep.Reason)
		}
		for i := range rep.Metrics {
			if rep.Metrics[i].Name == s.Metric {
				return rep.Metrics[i].Outcome == want, &rep.Metrics[i], rep, nil
			}
		}
		return false, nil, rep, fmt.Errorf("the paired gate of %s and %s did not compare %s", short(base), short(head), s.Metric)
	}
	found, mt, rep, err := shows(st.Before, st.After)
	if err != nil {
		conf.Status, conf.Reason = history.Failed, err.Error()
		return conf
	}
	conf.Outcome, conf.Estimate, conf.CI, conf.CILevel = mt.Outcome, mt.Delta, mt.CI, mt.CILevel
	if !found {
		conf.Status = history.NotConfirmed
		conf.Reason = fmt.Sprintf("the paired gate of %s and %s found %s %s, not a %s", short(st.Before), short(st.After), s.Metric, mt.Outcome, want)
		return conf
	}
	conf.Status = history.Confirmed
	conf.Functions, conf.Results = topFunctions(rep, m, 5), dir
	conf.Commit = st.After
	// Bisect: the culprit is in commits (lo, hi], where lo = -1 is Before.
	lo, hi := -1, len(commits)-1
	at := func(i int) string {
		if i < 0 {
			return st.Before
		}
		return commits[i]
	}
	for bisections := 0; hi-lo > 1 && bisections < c.budget; bisections++ {
		mid := (lo + hi + 1) / 2
		found, _, rep, err := shows(at(lo), commits[mid])
		if err != nil {
			conf.Reason = "bisection stopped: " + err.Error()
			break
		}
		if found {
			hi = mid
			conf.Functions, conf.Results = topFunctions(rep, m, 5), dir
		} else {
			lo = mid
		}
	}
	conf.Commit = commits[hi]
	if hi-lo > 1 {
		conf.Narrowed = append([]string(nil), commits[lo+1:hi+1]...)
		if conf.Reason == "" {
			conf.Reason = fmt.Sprintf("the bisection budget (%d gates) ran out with %d commits left", c.budget, hi-lo)
		}
	}
	return conf
}

// topFunctions are the largest function deltas of a gate in the profile
// the metric comes from (CPU for CPU time and latency), in the metric's
// terms where the profile has several (allocations or bytes).
func topFunctions(rep *report.Report, m *metric.Metric, n int) []history.Function {
	profile, unit := "cpu", ""
	switch m {
	case metric.Allocs:
		profile, unit = "allocs", "allocs/req"
	case metric.Bytes, metric.Heap:
		profile, unit = "allocs", "B/req"
	case metric.Goroutines:
		profile = "goroutine"
	}
	var fs []history.Function
	for _, f := range rep.Functions {
		if f.Profile == profile && (unit == "" || f.Unit == unit) {
			fs = append(fs, history.Function{Profile: f.Profile, Name: history.Clean(f.Name, history.MaxName), Unit: f.Unit, Delta: f.Delta})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return abs(fs[i].Delta) > abs(fs[j].Delta) })
	// A function can have a flat and a cum row: the alarm lists it once,
	// with the larger change.
	seen := map[string]bool{}
	unique := fs[:0]
	for _, f := range fs {
		if !seen[f.Name] {
			seen[f.Name] = true
			unique = append(unique, f)
		}
	}
	fs = unique
	if len(fs) > n {
		fs = fs[:n]
	}
	return fs
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// short is a commit's first 7 characters, as git shows it.
func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
