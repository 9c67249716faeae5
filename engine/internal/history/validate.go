package history

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/perfgate/perfgate/engine/internal/metric"
)

// A history is untrusted input. Its data branch is written by CI jobs and
// by anyone who can push to it, and what a line holds reaches git (commit
// ids become rev-list and worktree arguments), the alarm issue's Markdown
// and its shell block (results directories, profile names), the trend
// page's links, and pruning (times). So every field is checked when a
// line is read; a line with any field out of bounds is never used: it is
// kept as an unreadable line (within Keep.Unreadable) and named in a
// warning.

// FutureSkew is how far past the reader's clock a line's time may be: CI
// runners' clocks agree to within seconds, and a line dated later would
// outlive every real one in pruning.
const FutureSkew = 15 * time.Minute

// Bounds on the free text a line carries: enough for any real value (a
// label is a branch or tag name, a reason one sentence, a function name a
// Go symbol with its package path), far below what would bloat a page.
const (
	maxLabel    = 256
	MaxText     = 2048
	MaxName     = 1024
	maxNarrowed = 1000
	maxGates    = 10000
)

var (
	// fullCommit is a commit id as git prints it in full (SHA-1 or
	// SHA-256).
	fullCommit = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
	// machinePattern is MachineKey's form.
	machinePattern = regexp.MustCompile(`^[0-9a-f]{12}$`)
	// resultsPattern is the confirming gate's directory as trend names it:
	// confirm/<base>-<head>, each a short commit.
	resultsPattern = regexp.MustCompile(`^confirm/[0-9a-f]{7}-[0-9a-f]{7}$`)
	// artifactPattern is a CI artifact's name.
	artifactPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	// unitPattern is a metric's or a profile's unit (µs/req, B/req, ...).
	unitPattern = regexp.MustCompile(`^[A-Za-z0-9µ/%. ]{0,24}$`)
)

// IsFullCommit says whether s is a commit id as git prints it in full.
func IsFullCommit(s string) bool { return fullCommit.MatchString(s) }

// IsArtifactName says whether s may name a CI artifact: in a history line,
// or in alarm.md's `gh run download -n`.
func IsArtifactName(s string) bool { return artifactPattern.MatchString(s) }

// profiles are the profiles a confirmation's functions may come from.
var profiles = map[string]bool{"cpu": true, "allocs": true, "heap": true, "goroutine": true, "mutex": true, "block": true}

// statuses and outcomes a confirmation may hold.
var (
	statuses = map[string]bool{Confirmed: true, NotConfirmed: true, Failed: true}
	outcomes = map[string]bool{"": true, "regression": true, "improvement": true, "unchanged": true, "inconclusive": true}
)

// ConfirmationID names a step by what identifies it across nights: its
// metric, its machine and its commit range. A confirmation line whose ID
// is not rebuilt from its own fields is not read.
func ConfirmationID(metricName, machine, before, after string) string {
	return strings.Join([]string{metricName, machine, before, after}, "|")
}

// problem says why the entry cannot be used in config's history read at
// now, or "".
func (e Entry) problem(config string, now time.Time) string {
	var c checker
	c.equal("config", e.Config, config)
	c.commit("commit", e.Commit)
	if !strings.HasPrefix(e.ID, e.Commit+"@") || len(e.ID) > len(e.Commit)+64 {
		c.fail("id %.80q is not the commit followed by @ and the recording's start", e.ID)
	}
	c.time(e.Time, now)
	c.text("label", e.Label, maxLabel)
	c.text("engine", e.Engine, maxLabel)
	c.text("verdict", e.Verdict, 32)
	if e.Runs < 0 {
		c.fail("runs %d is negative", e.Runs)
	}
	f := e.Fingerprint
	if f.Machine != "" {
		c.match("fingerprint.machine", f.Machine, machinePattern)
	}
	// In a fixed order, so that the first problem named is the same on
	// every read.
	for _, field := range [][2]string{{"cpu_model", f.CPUModel}, {"arch", f.Arch}, {"target", f.Target}, {"confinement", f.Confinement},
		{"kernel", f.Kernel}, {"os", f.OS}, {"go_version", f.GoVersion}, {"runner_image", f.RunnerImage}} {
		c.text("fingerprint."+field[0], field[1], maxLabel)
	}
	if f.CPUs < 0 || f.CPUMillicores < 0 || f.MemoryBytes < 0 {
		c.fail("fingerprint's CPUs, millicores or memory is negative")
	}
	for _, name := range slices.Sorted(maps.Keys(e.Metrics)) {
		s := e.Metrics[name]
		c.text("metric name", name, 64)
		c.match("metrics."+name+".unit", s.Unit, unitPattern)
		if s.N < 0 {
			c.fail("metrics.%s.n %d is negative", name, s.N)
		}
	}
	if p := e.Paired; p != nil {
		c.paired(p)
	}
	if a := e.Artifact; a != nil {
		if a.Name != "" {
			c.match("artifact.name", a.Name, artifactPattern)
		}
		if a.ID < 0 || a.RunID < 0 {
			c.fail("artifact's id or run_id is negative")
		}
		if a.RunURL != "" {
			if u, err := url.Parse(a.RunURL); err != nil || u.Scheme != "https" || u.Host == "" || len(a.RunURL) > MaxText {
				c.fail("artifact.run_url %.80q is not an https:// URL", a.RunURL)
			}
		}
	}
	return c.problem
}

// problem says why the confirmation cannot be used in config's history
// read at now, or "".
func (k Confirmation) problem(config string, now time.Time) string {
	var c checker
	c.equal("config", k.Config, config)
	if _, ok := metric.Lookup(k.Metric); !ok {
		c.fail("metric %.40q is not one this perfgate knows", k.Metric)
	}
	if k.Machine != "" {
		c.match("machine", k.Machine, machinePattern)
	}
	c.commit("before", k.Before)
	c.commit("after", k.After)
	c.equal("id", k.ID, ConfirmationID(k.Metric, k.Machine, k.Before, k.After))
	c.time(k.Time, now)
	if !statuses[k.Status] {
		c.fail("status %.40q is not confirmed, not confirmed or failed", k.Status)
	}
	if !outcomes[k.Outcome] {
		c.fail("outcome %.40q is not a gate's outcome", k.Outcome)
	}
	if k.Commit != "" {
		c.commit("commit", k.Commit)
	}
	if len(k.Narrowed) > maxNarrowed {
		c.fail("narrowed lists %d commits, more than %d", len(k.Narrowed), maxNarrowed)
	}
	for _, n := range k.Narrowed {
		c.commit("narrowed", n)
	}
	if k.CILevel < 0 || k.CILevel > 1 {
		c.fail("ci_level %v is not between 0 and 1", k.CILevel)
	}
	if k.Gates < 0 || k.Gates > maxGates {
		c.fail("gates %d is out of bounds", k.Gates)
	}
	c.text("reason", k.Reason, MaxText)
	if k.Results != "" {
		c.match("results", k.Results, resultsPattern)
	}
	c.functions(k.Functions)
	return c.problem
}

// paired checks a paired entry's block: the commit it was paired with,
// estimates that are finite, inside their own interval and above −100%
// (they are fractions of a positive quantity), and the functions'
// profiles and names.
func (c *checker) paired(p *Paired) {
	c.commit("paired.with", p.With)
	if p.Experiment != "duet" && p.Experiment != "sequential" {
		c.fail("paired.experiment %.40q is not duet or sequential", p.Experiment)
	}
	if len(p.Metrics) > len(metric.Catalog) {
		c.fail("paired.metrics holds %d metrics, more than perfgate has", len(p.Metrics))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Metrics)) {
		m := p.Metrics[name]
		if _, ok := metric.Lookup(name); !ok {
			c.fail("paired.metrics: %.40q is not a metric this perfgate knows", name)
			continue
		}
		values := []float64{m.Estimate, m.CI[0], m.CI[1], m.Level}
		if slices.ContainsFunc(values, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) ||
			m.CI[0] <= -1 || !(m.CI[0] <= m.Estimate && m.Estimate <= m.CI[1]) || m.Level <= 0 || m.Level > 1 || m.Pairs < 2 {
			c.fail("paired.metrics.%s is not an estimate inside its interval (estimate %v, ci %v, level %v, pairs %d)", name, m.Estimate, m.CI, m.Level, m.Pairs)
		}
	}
	c.functions(p.Functions)
}

// functions checks the functions a line names.
func (c *checker) functions(fs []Function) {
	for _, f := range fs {
		if !profiles[f.Profile] {
			c.fail("function profile %.40q is not a profile perfgate captures", f.Profile)
		}
		c.text("function name", f.Name, MaxName)
		c.match("function unit", f.Unit, unitPattern)
	}
}

// checker keeps the first problem found.
type checker struct{ problem string }

func (c *checker) fail(format string, a ...any) {
	if c.problem == "" {
		c.problem = fmt.Sprintf(format, a...)
	}
}

func (c *checker) equal(field, got, want string) {
	if got != want {
		c.fail("%s %.80q is not %.80q", field, got, want)
	}
}

func (c *checker) commit(field, v string) {
	if !IsFullCommit(v) {
		c.fail("%s %.80q is not a full commit id", field, v)
	}
}

func (c *checker) match(field, v string, pattern *regexp.Regexp) {
	if !pattern.MatchString(v) {
		c.fail("%s %.80q is not of the form %s", field, v, pattern)
	}
}

func (c *checker) time(t, now time.Time) {
	switch {
	case t.IsZero():
		c.fail("time is missing")
	case t.After(now.Add(FutureSkew)):
		c.fail("time %s is in the future (now %s)", t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
}

// text bounds free text and refuses control characters (a newline would
// end a Markdown table row or a shell line wherever the text is shown).
func (c *checker) text(field, v string, max int) {
	if len(v) > max {
		c.fail("%s is %d bytes long, more than %d", field, len(v), max)
		return
	}
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		c.fail("%s %.80q holds a control character", field, v)
	}
}

// Clean makes text that perfgate itself writes into a history line fit
// the bounds its readers check: control characters become spaces (an
// error message may hold a build's output) and it is cut at max bytes,
// on a character boundary.
func Clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
