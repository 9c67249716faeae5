package trend

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/history"
)

func confirmation(metric, outcome, status string, day int) history.Confirmation {
	return history.Confirmation{ID: metric + string(rune('a'+day)), Metric: metric, Machine: "m1", Status: status, Outcome: outcome,
		Commit: strings.Repeat(string(rune('a'+day)), 40), Estimate: 0.08, Time: time.Date(2026, 11, day, 3, 0, 0, 0, time.UTC)}
}

func TestAlarmOpensOnConfirmedRegressionsAndClosesWhenReversed(t *testing.T) {
	for _, c := range []struct {
		name  string
		conf  []history.Confirmation
		state string
		open  int
	}{
		{"nothing", nil, AlarmNone, 0},
		{"suspected only", []history.Confirmation{confirmation("cpu", "unchanged", history.NotConfirmed, 1)}, AlarmNone, 0},
		{"confirmed regression", []history.Confirmation{confirmation("cpu", "regression", history.Confirmed, 1)}, AlarmOpen, 1},
		{"reversed", []history.Confirmation{confirmation("cpu", "improvement", history.Confirmed, 5), confirmation("cpu", "regression", history.Confirmed, 1)}, AlarmResolved, 0},
		{"improvement of another metric", []history.Confirmation{confirmation("cpu", "regression", history.Confirmed, 1), confirmation("allocs", "improvement", history.Confirmed, 5)}, AlarmOpen, 1},
		{"regressed again", []history.Confirmation{confirmation("cpu", "regression", history.Confirmed, 1), confirmation("cpu", "improvement", history.Confirmed, 5), confirmation("cpu", "regression", history.Confirmed, 9)}, AlarmOpen, 1},
		{"two open", []history.Confirmation{confirmation("cpu", "regression", history.Confirmed, 1), confirmation("allocs", "regression", history.Confirmed, 2)}, AlarmOpen, 2},
	} {
		a := alarmOf("perfgate", c.conf)
		if a.State != c.state || len(a.Open) != c.open {
			t.Errorf("%s: state %s with %d open (%q); want %s with %d", c.name, a.State, len(a.Open), a.Title, c.state, c.open)
		}
	}
}

func TestAlarmMarkdownEscapesWhatComesFromProfiles(t *testing.T) {
	c := confirmation("cpu", "regression", history.Confirmed, 1)
	c.Before, c.After = strings.Repeat("0", 40), c.Commit
	c.Results = "confirm/0000000-bbbbbbb"
	c.Functions = []history.Function{{Profile: "cpu", Name: "main.(*T).f`<img src=x onerror=alert(1)>](javascript:x)", Unit: "µs/req", Delta: 1.5}}
	c.CILevel, c.CI, c.Gates = 0.95, [2]float64{0.05, 0.1}, 1
	a := alarmOf("perfgate", []history.Confirmation{c})
	md := alarmMarkdown("perfgate", a, nil, Links{Server: "https://github.com", Repository: "o/r", RunID: 7, Artifact: "perfgate-trend"})
	if !strings.HasPrefix(md, Marker("perfgate")+"\n") {
		t.Errorf("no marker first:\n%s", md)
	}
	// Inside a code span (a fence longer than its backticks) nothing is
	// markup: no HTML, no link.
	if !strings.Contains(md, "| ``main.(*T).f`<img src=x onerror=alert(1)>](javascript:x)`` |") {
		t.Errorf("a function name is not shown as a code span:\n%s", md)
	}
	for _, want := range []string{"https://github.com/o/r/commit/" + c.Commit, "gh run download 7 -n perfgate-trend -D trend", "go tool pprof -http=: -diff_base trend/confirm/0000000-bbbbbbb/base.cpu.pb.gz trend/confirm/0000000-bbbbbbb/head.cpu.pb.gz", "+8",
		"Charts of every series: `index.html` in the artifact `perfgate-trend` of [run 7](https://github.com/o/r/actions/runs/7)"} {
		if !strings.Contains(md, want) {
			t.Errorf("alarm.md lacks %q:\n%s", want, md)
		}
	}
	// A commit that is not hexadecimal is never made a link.
	if ref := commitRef("](javascript:alert(1))", Links{Server: "https://github.com", Repository: "o/r"}); !strings.HasPrefix(ref, "`") || !strings.HasSuffix(ref, "`") || strings.Count(ref, "`") != 2 {
		t.Errorf("commitRef linked a non-SHA: %s", ref)
	}
}

// TestAlarmOfAPairedNightSaysHowItWasMeasured: a step confirmed by its
// night's duet names that night, not medians and a p-value, spends no
// gate line, and says how to open that night's profiles.
func TestAlarmOfAPairedNightSaysHowItWasMeasured(t *testing.T) {
	before, after := strings.Repeat("a", 40), strings.Repeat("b", 40)
	night := &history.PairedEstimate{Estimate: 0.031, CI: [2]float64{0.024, 0.038}, Level: 0.999, Pairs: 14}
	c := history.Confirmation{ID: history.ConfirmationID("cpu", "m1", before, after), Metric: "cpu", Machine: "m1", Before: before, After: after, Commit: after,
		Status: history.Confirmed, Outcome: "regression", Estimate: night.Estimate, CI: night.CI, CILevel: night.Level,
		Functions: []history.Function{{Profile: "cpu", Name: "crypto/sha256.block", Unit: "µs/req", Delta: 9}}, Time: time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)}
	series := []Series{{Metric: "cpu", Machine: "m1", Points: []Point{{Commit: before}, {Commit: after, Artifact: &history.Artifact{Name: "perfgate-results-attempt-1", RunID: 99}}},
		Steps: []Step{{Index: 1, Before: before, After: after, Magnitude: 0.031, P: 0.001, Paired: night, Confirmation: &c}}}}
	md := alarmMarkdown("perfgate", alarmOf("perfgate", []history.Confirmation{c}), series, Links{})
	for _, want := range []string{"- Paired night: `bbbbbbb` measured at the same time as `aaaaaaa`, on the same CPUs: +3.1% (99.9% interval +2.4% to +3.8%, 14 rounds).",
		"gh run download 99 -n perfgate-results-attempt-1 -D night", "go tool pprof -http=: -diff_base night/base.cpu.pb.gz night/head.cpu.pb.gz"} {
		if !strings.Contains(md, want) {
			t.Errorf("alarm.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Paired gate:") || strings.Contains(md, "Nightly medians") {
		t.Errorf("alarm.md speaks of gates or medians for a paired night:\n%s", md)
	}
}
