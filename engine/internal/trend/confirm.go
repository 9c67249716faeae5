package trend

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
	// maxGates is the most paired gates this trend run runs, confirming
	// and bisecting, across every step (0: no limit); ran counts them.
	// budget bounds one step, and a night can have many steps (every
	// metric on every machine): without maxGates the run's gates, and its
	// time, grow with them.
	maxGates, ran int
	// minStep is the smallest step of a relative metric (Settings.MinMagnitude).
	minStep float64
	out     string
	config  string
	now     func() time.Time
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
	if c.maxGates > 0 && c.ran >= c.maxGates {
		return nil, dir, gateLimit(c.maxGates)
	}
	c.ran++
	rep, err := c.gate(ctx, base, head, filepath.Join(c.out, dir))
	if rep != nil {
		if c.gates == nil {
			c.gates = map[[2]string]*report.Report{}
		}
		c.gates[[2]string{base, head}] = rep
	}
	return rep, dir, err
}

// gateLimit is the error of a gate the run's limit (Settings.MaxGates)
// does not allow.
type gateLimit int

func (g gateLimit) Error() string {
	return fmt.Sprintf("this trend run reached its limit of %d paired gates (--max-gates)", int(g))
}

// errUnchecked is why confirm made no confirmation: the run's gate limit
// or an interruption stopped the gate that would confirm the step. The
// step stays unchecked, to be confirmed by a later night, and costs none
// of its attempts.
var errUnchecked = errors.New("the step is left unchecked")

// confirmationID names a step by what identifies it across nights.
func confirmationID(s Series, st Step) string {
	return history.ConfirmationID(s.Metric, s.Machine, st.Before, st.After)
}

// confirm runs the paired gate of the step's two commits and, when it
// shows the step and the range holds several commits, bisects it. It
// returns an error wrapping errUnchecked when the confirming gate could
// not run for the run's sake, not the commits' (the gate limit, an
// interruption): there is then no confirmation to keep.
func (c *confirmer) confirm(ctx context.Context, s Series, st Step) (history.Confirmation, error) {
	conf := history.Confirmation{
		Schema: history.Schema, Kind: history.KindConfirmation, ID: confirmationID(s, st), Config: c.config,
		Metric: s.Metric, Machine: s.Machine, Before: st.Before, After: st.After, Time: c.now().UTC(),
	}
	m, _ := metric.Lookup(s.Metric)
	if m == nil || !m.Compared() {
		conf.Status, conf.Reason = history.Failed, fmt.Sprintf("%s is not compared pair by pair, so a paired gate cannot confirm its step; look at the entries' artifacts", s.Metric)
		return conf, nil
	}
	if st.Before == st.After {
		conf.Status, conf.Reason = history.NotConfirmed, "both sides of the step are the same commit: the step is the machine's, not the code's"
		return conf, nil
	}
	commits, err := c.commits(ctx, st.Before, st.After)
	if err != nil && st.Paired != nil {
		// The night's duet already compared the two commits: only the
		// bisection of what lies between them needs the checkout.
		commits = []string{st.After}
		conf.Reason = "not bisected: " + err.Error()
	} else if err != nil && ctx.Err() != nil {
		return conf, fmt.Errorf("%w: %w", errUnchecked, ctx.Err())
	} else if err != nil {
		conf.Status, conf.Reason = history.Failed, err.Error()
		return conf, nil
	}
	want := report.Regression
	if st.Direction == Improvement {
		want = report.Improvement
	}
	var dir string
	shows := func(base, head string) (bool, *report.Metric, *report.Report, error) {
		rep, d, err := c.gateOnce(ctx, base, head)
		if !errors.As(err, new(gateLimit)) {
			conf.Gates++ // a gate the run's limit refused is none
		}
		dir = d
		if err != nil && rep == nil {
			return false, nil, nil, fmt.Errorf("the paired gate of %s and %s failed: %w", short(base), short(head), err)
		}
		if rep.Verdict == report.Invalid || rep.Verdict == report.Error {
			return false, nil, rep, fmt.Errorf("the paired gate of %s and %s is %s: %s", short(base), short(head), rep.Verdict, rep.Reason)
		}
		for i := range rep.Metrics {
			if mt := &rep.Metrics[i]; mt.Name == s.Metric {
				return mt.Outcome == want || c.beyondNoChange(m, mt, st.Direction), mt, rep, nil
			}
		}
		return false, nil, rep, fmt.Errorf("the paired gate of %s and %s did not compare %s", short(base), short(head), s.Metric)
	}
	if p := st.Paired; p != nil {
		// Found from the night's duet of these two commits: that duet is
		// the confirming gate.
		conf.Outcome, conf.Estimate, conf.CI, conf.CILevel = want, p.Estimate, p.CI, p.Level
		conf.Functions = functionsOf(st.functions, m)
		conf.Reason = strings.TrimPrefix(strings.Join([]string{conf.Reason, fmt.Sprintf(
			"confirmed by the night's paired recording of %s against %s (%d rounds measured at once)", short(st.After), short(st.Before), p.Pairs)}, "; "), "; ")
	} else {
		found, mt, rep, err := shows(st.Before, st.After)
		if err != nil && (errors.As(err, new(gateLimit)) || ctx.Err() != nil) {
			return conf, fmt.Errorf("%w: %w", errUnchecked, err)
		}
		if err != nil {
			conf.Status, conf.Reason = history.Failed, err.Error()
			return conf, nil
		}
		conf.Outcome, conf.Estimate, conf.CI, conf.CILevel = mt.Outcome, mt.Delta, mt.CI, mt.CILevel
		if !found {
			conf.Status = history.NotConfirmed
			conf.Reason = fmt.Sprintf("the paired gate of %s and %s found %s %s, not a %s", short(st.Before), short(st.After), s.Metric, mt.Outcome, want)
			return conf, nil
		}
		conf.Functions, conf.Results = history.TopFunctions(rep, m, 5), dir
	}
	conf.Status = history.Confirmed
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
			// The step is confirmed whatever stopped its bisection (a
			// gate limit, an interruption): the range left is kept.
			conf.Reason = "bisection stopped: " + err.Error()
			if ctx.Err() != nil {
				conf.Reason = "bisection stopped: the trend was interrupted"
			}
			break
		}
		if found {
			hi = mid
			conf.Functions, conf.Results = history.TopFunctions(rep, m, 5), dir
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
	return conf, nil
}

// beyondNoChange says whether a gate's comparison shows a relative
// metric's step without its threshold: the interval leaves no change out
// on the step's side and the estimate is at least the trend's smallest
// step. A step smaller than the gate's threshold is still a step of
// main: a pull request gate would pass it, the trend must not miss it.
func (c *confirmer) beyondNoChange(m *metric.Metric, mt *report.Metric, dir string) bool {
	if m.Scale != metric.Relative || abs(mt.Delta) < c.minStep {
		return false
	}
	if (dir == Regression) != m.HigherIsBetter {
		return mt.CI[0] > 0
	}
	return mt.CI[1] < 0
}

// functionsOf are a paired night's function changes in the profile the
// metric comes from, at most five.
func functionsOf(fs []history.Function, m *metric.Metric) []history.Function {
	profile, unit := history.ProfileOf(m)
	var out []history.Function
	for _, f := range fs {
		if f.Profile == profile && (unit == "" || f.Unit == unit) && len(out) < 5 {
			out = append(out, f)
		}
	}
	return out
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
