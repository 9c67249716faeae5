package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// nextSteps says what to do about this verdict, in one to three lines:
// fix or accept a regression, what would decide an inconclusive gate,
// how to repair an invalid measurement, what a pass could have caught.
func nextSteps(rep *report.Report, links Links) string {
	var s string
	switch rep.Verdict {
	case report.Regression:
		s = regressionSteps(rep, links)
	case report.Inconclusive:
		s = inconclusiveSteps(rep)
	case report.Invalid:
		s = invalidSteps(rep)
	case report.Pass, report.Improvement:
		s = passSteps(rep)
	case report.Error:
		s = "Read the step's log for the failing command; nothing was measured, so re-running after the fix is safe."
	}
	if s == "" {
		return ""
	}
	return "**What next**: " + s + "\n"
}

func regressionSteps(rep *report.Report, links Links) string {
	if acceptedRegression(rep, links) {
		return fmt.Sprintf("nothing: the regression is accepted. Remove the label %s to gate this pull request again on its next run.", Code(links.AcceptLabel))
	}
	regressed := outcomeMetrics(rep, report.Regression)
	var costs []report.Metric
	failed := false
	for _, m := range regressed {
		if m.Name == metric.Failures.Name {
			failed = true
		} else {
			costs = append(costs, m)
		}
	}
	var fixes []string
	if failed {
		fixes = append(fixes, "fix what made head's service fail, starting from its invalid runs below and the service's output in each run's directory (stderr.log in the results artifact)")
	}
	if len(costs) == 0 {
		if links.AcceptLabel != "" {
			fixes = append(fixes, fmt.Sprintf("or, if it is intended, someone with write access adds the label %s after the latest push (the check then passes, naming who accepted it)", Code(links.AcceptLabel)))
		}
		return strings.Join(fixes, "; ") + "." + checkSentence(rep)
	}
	accept := fmt.Sprintf("raise %s in %s", strings.Join(thresholdKeys(costs), ", "), thresholdsFile(rep))
	if rep.ThresholdsFrom == report.ThresholdsFromBase && len(rep.ConfigChanges) == 0 {
		// With config changes, the plan's line above already says so.
		accept += " (thresholds come from the base)"
	}
	if links.AcceptLabel != "" {
		// The Action counts the label only from someone with write access,
		// added after the latest push (src/accept-label.ts): say so here,
		// where a reader decides to add it.
		accept = fmt.Sprintf("add the label %s (write access, after the last push) or %s", Code(links.AcceptLabel), accept)
	}
	fixes = append(fixes, fixStart(rep)+"; or, if intended, "+accept)
	return strings.Join(fixes, "; ") + "." + checkSentence(rep)
}

// fixStart says where fixing a regressed cost starts: the functions table
// when the comment shows one, else what the comment does show, and why
// there is no table (a comment that points at "the functions below" with
// none below sends the reader looking for nothing).
func fixStart(rep *report.Report) string {
	if fs, _ := ReviewedFunctions(rep); len(fs) > 0 {
		return "fix it, starting from the functions below"
	}
	why := "no function changed beyond the profiles' noise"
	if !profiled(rep) {
		why = "no profiles were captured, so no function is named"
	}
	if endpointsLine(rep) != "" {
		return "fix it, starting from the request lines that regressed (below; " + why + ")"
	}
	return "fix it, starting from the diff (" + why + ")"
}

// profiled says whether any run of the gate captured a profile.
func profiled(rep *report.Report) bool {
	for _, r := range rep.Runs {
		if len(r.Profiles) > 0 {
			return true
		}
	}
	return false
}

// checkSentence says what this verdict does to the check under the
// report's fail_on, with a leading space; nothing when the report does
// not know (a gate run without --fail-on), and nothing where it goes
// without saying (a regression failing it).
func checkSentence(rep *report.Report) string {
	fails, known := report.FailsCheck(rep.Verdict, rep.FailOn)
	if !known || rep.Verdict == report.Regression && fails {
		return ""
	}
	setting := fmt.Sprintf("`fail-on: %s`", rep.FailOn)
	switch {
	case rep.Verdict == report.Invalid && fails:
		return fmt.Sprintf(" The check fails (%s fails an invalid measurement too, because nothing could be compared), but nothing is reported as a regression: repair the measurement and re-run.", setting)
	case fails:
		return fmt.Sprintf(" The check fails (%s).", setting)
	}
	return fmt.Sprintf(" The check does not fail (%s).", setting)
}

// thresholdKeys are the perfgate.yml keys of the metrics' thresholds.
func thresholdKeys(ms []report.Metric) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range ms {
		c, ok := metric.Lookup(m.Name)
		if !ok || c.Gate == nil || c.Gate.Key == "" || seen[c.Gate.Key] {
			continue
		}
		seen[c.Gate.Key] = true
		keys = append(keys, "`"+c.Gate.Key+"`")
	}
	if len(keys) == 0 {
		keys = []string{"the threshold"}
	}
	return keys
}

// inconclusiveSteps says how many rounds would decide each undecided
// metric at the spread this run measured: an interval's half-width
// shrinks as one over the square root of the rounds, so deciding needs
// the interval to fit between the estimate and the threshold.
func inconclusiveSteps(rep *report.Report) string {
	need, pairs := 0, 0
	unit := "pairs"
	if designOf(rep) == designDuet {
		unit = "rounds"
	}
	var atThreshold []string
	for _, m := range outcomeMetrics(rep, report.Inconclusive) {
		pairs = max(pairs, m.Pairs)
		n, ok := roundsToDecide(withLevel(m, rep))
		if !ok {
			atThreshold = append(atThreshold, atThresholdStep(rep, m, unit))
			continue
		}
		need = max(need, n)
	}
	var parts []string
	if need > 0 {
		where := "in perfgate.yml (or `pairs.max` to at least %d) and re-run"
		if rep.ThresholdsFrom == report.ThresholdsFromBase {
			// The plan comes from the base: raising pairs in this pull
			// request would not change this gate.
			where = "(or `pairs.max` to at least %d) in the base branch's perfgate.yml, where the plan comes from, and re-run"
		}
		parts = append(parts, fmt.Sprintf("at this run's spread, about %d valid %s would decide it (this run had %d): set `pairs: %d` "+where, need, unit, pairs, need, need))
	}
	parts = append(parts, atThreshold...)
	if len(parts) == 0 {
		return "re-run the gate; the metrics above were undecided at this run's spread." + checkSentence(rep)
	}
	return strings.Join(parts, "; ") + "." + checkSentence(rep)
}

// atThresholdStep is the next step for a metric that no affordable
// number of rounds decides: its change sits close to its threshold, or
// its interval is wide for the room between them. It gives the figures
// the reader can check against the table, and the one setting that would
// decide it (a threshold above the rise not yet ruled out, which
// "unchanged" needs).
func atThresholdStep(rep *report.Report, m report.Metric, unit string) string {
	c := metric.Of(m)
	bound, level := m.PassBound()
	relation, narrowed := "under", "to bring that bound under the threshold"
	open := fmt.Sprintf("a rise up to %s is not ruled out (at %s)", c.FormatChange(bound), metric.Percent(level))
	near := math.Abs(m.Delta-m.Threshold) <= nearThreshold*math.Abs(m.Threshold)
	switch {
	case m.Delta < m.Threshold && near:
		relation = "just under"
	case m.Delta >= m.Threshold:
		relation, narrowed = "over", "to lift it above half the threshold, as a regression needs"
		open = fmt.Sprintf("its likely range reaches down to %s, not above half the threshold", c.FormatChange(m.CI[0]))
		if near {
			relation = "at or just over"
		}
	}
	times := "far more than"
	if scale := roundsScale(m); !math.IsInf(scale, 1) {
		times = fmt.Sprintf("about %.0f times", math.Ceil(scale))
	}
	return fmt.Sprintf("%s changed %s, %s its threshold (%s), but %s: at this run's spread it would take %s its %d %s %s, so re-running will not decide it; if a change up to %s is acceptable, raise %s above it in %s",
		titleOf(m), c.FormatChange(m.Delta), relation, c.FormatChange(m.Threshold), open,
		times, m.Pairs, unit, narrowed, c.FormatChange(bound), strings.Join(thresholdKeys([]report.Metric{m}), ", "), thresholdsFile(rep))
}

// thresholdsFile is where the gate read its thresholds: a gate that read
// them from the base is not passed by raising them in this pull request.
func thresholdsFile(rep *report.Report) string {
	if rep.ThresholdsFrom == report.ThresholdsFromBase {
		return "the base's perfgate.yml"
	}
	return "perfgate.yml"
}

// nearThreshold is how close to its threshold, as a share of it, a change
// is called "just under" or "at or just over" it.
const nearThreshold = 0.25

// withLevel fills in the level a look spent for a report written before
// metrics recorded it: the whole alpha over the gating metrics, which a
// single look would spend.
func withLevel(m report.Metric, rep *report.Report) report.Metric {
	if m.Level > 0 {
		return m
	}
	m.Level = rep.Config.Gate.Alpha
	for _, g := range rep.Metrics {
		if g.Gates {
			m.Family++
		}
	}
	return m
}

// maxScaleUp is the most rounds a suggestion multiplies a run by; beyond
// it, the change sits so close to the threshold that rounds are not the
// answer.
const maxScaleUp = 8

// roundsToDecide is the number of valid rounds at which the metric's
// interval, at the measured spread, would clear its threshold on the side
// of the estimate, and at which the signed-rank test can reach the level
// the look spent; false when that is more than maxScaleUp times the
// rounds run.
func roundsToDecide(m report.Metric) (int, bool) {
	if m.Pairs <= 0 {
		return 0, false
	}
	scale := roundsScale(m)
	if scale > maxScaleUp {
		return 0, false
	}
	n := int(math.Ceil(float64(m.Pairs) * max(1, scale)))
	if m.Level > 0 {
		n = max(n, stats.MinRounds(m.Level, max(1, m.Family)))
	}
	return max(n, m.Pairs+1), true
}

// roundsScale is how many times the rounds run the interval needs to
// clear the threshold on the side of the estimate (its half-width shrinks
// as one over the square root of the rounds): at most 1 when its width
// already fits, +Inf when nothing fits.
func roundsScale(m report.Metric) float64 {
	est, low, threshold := m.Delta, m.CI[0], m.Threshold
	high, _ := m.PassBound()
	var width, room float64
	if est < threshold {
		width, room = high-est, threshold-est // the bound "unchanged" needs must fall below the threshold
	} else {
		// A regression needs the increase beyond δ0 significant (with the
		// estimate over the threshold): the lower bound must rise above δ0.
		width, room = est-low, est-stats.IndifferenceShare*threshold
	}
	if room <= 0 {
		return math.Inf(1)
	}
	return (width / room) * (width / room)
}

// invalidFixes pair the start of each invalid-run reason
// (experiment/validity.go, duet.go) with its fix.
var invalidFixes = []struct{ prefix, fix string }{
	{"OOM-killed", "raise `resources.memory`, or find what grew in the heap profile"},
	{"crashed during the run", "the service died under load: its log is in the artifact (runs' stderr)"},
	{"achieved rate", "the service could not keep up with `load.rate` at `resources.cpu`: lower the rate or raise the CPU limit"},
	{"error rate", "the service answered errors: check `load.requests` against the service and its log in the artifact"},
	{"load generator saturated", "lower `load.rate`, or run on a machine with more CPUs for the load generator"},
	{"too few CPU samples", "lengthen `load.duration` or raise `load.rate`"},
	{"the shared CPUs were too busy", "base and head together need more CPU than the duet shares: lower `load.rate` or raise `resources.cpu`"},
	{"the duet's balance was broken", "base and head were not sent the same requests: re-run; if it repeats, open an issue with the artifact"},
}

// invalidSteps gives one fix per kind of reason the invalid runs had.
func invalidSteps(rep *report.Report) string {
	seen := map[string]bool{}
	var fixes []string
	for _, r := range rep.Runs {
		for _, reason := range r.InvalidReasons {
			for _, f := range invalidFixes {
				if strings.HasPrefix(reason, f.prefix) && !seen[f.prefix] {
					seen[f.prefix] = true
					fixes = append(fixes, f.fix)
				}
			}
		}
	}
	if len(fixes) == 0 {
		return "see the invalid runs below for each run's reason; " + invalidIsNeither + checkSentence(rep)
	}
	fix := strings.Join(fixes, "; ") + "."
	if rep.ThresholdsFrom == report.ThresholdsFromBase && (strings.Contains(fix, "`load.") || strings.Contains(fix, "`resources.")) {
		fix += " perfgate.yml's plan (load, resources) comes from the base branch: change it there."
	}
	return fix + " " + strings.ToUpper(invalidIsNeither[:1]) + invalidIsNeither[1:] + checkSentence(rep)
}

// invalidIsNeither says what an invalid measurement means for the pull
// request: the rounds it did measure were weighed (failures), and fell
// short of a regression.
const invalidIsNeither = "an invalid measurement is neither a pass nor a regression: had head's service failed in significantly more rounds than base's (failures), this would be a regression."

// passSteps says what this run could have caught: a pass means nothing
// bigger than this changed.
func passSteps(rep *report.Report) string {
	var parts []string
	for _, m := range rep.Metrics {
		if !m.Gates || m.Detectable == nil {
			continue
		}
		if _, ok := metric.Lookup(m.Name); !ok {
			continue
		}
		parts = append(parts, titleOf(m)+" "+detectable(m))
	}
	if len(parts) == 0 {
		return "nothing; note that this run had too few valid rounds to detect a change of any gating metric."
	}
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return "nothing. This run would have caught a change of " + strings.Join(parts, ", ") + "."
}
