package render

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

func TestHTMLDuet(t *testing.T) {
	page, err := HTML(duetReport(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "duet.html", page)
}

// TestRoundsInvalidRound: a round with an invalid run is drawn grey, its
// reason (untrusted: it can quote a service) escaped in its title and in
// the table.
func TestRoundsInvalidRound(t *testing.T) {
	rep := duetReport(t)
	for i := range rep.Runs {
		if rep.Runs[i].Pair == 5 && rep.Runs[i].Side == "head" {
			rep.Runs[i].Valid = false
			rep.Runs[i].InvalidReasons = []string{`exited: panic: <script>alert(1)</script> & "quotes" @octocat`}
		}
	}
	section := string(roundsSection(rep))
	for _, want := range []string{
		`round 5: invalid`,
		`<title>round 5, not compared: head: exited: panic: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#64;octocat</title>`,
		`<tr class="invalid"><td>5</td>`,
		`fill="none" stroke="` + greyColour + `"`,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the Rounds section lacks %s", want)
		}
	}
	if strings.Contains(section, "<script") {
		t.Error("a reason became markup")
	}
}

// TestRoundsOldReport: reports from before duets have no per-second
// samples and no experiment; the section keeps what it can draw.
func TestRoundsOldReport(t *testing.T) {
	rep := duetReport(t)
	rep.Experiment = ""
	for i := range rep.Runs {
		rep.Runs[i].Seconds, rep.Runs[i].Duet = nil, nil
	}
	section := string(roundsSection(rep))
	if strings.Contains(section, "second by second") {
		t.Error("drew per-second CPU without samples")
	}
	if !strings.Contains(section, "CPU per request: change per round") || strings.Contains(section, "shared CPU busy") {
		t.Errorf("an old report's section:\n%s", section)
	}
	if _, err := HTML(&report.Report{Schema: 1, Verdict: report.Error}); err != nil {
		t.Errorf("a report without runs: %v", err)
	}
}

func TestRoundsNothingToDraw(t *testing.T) {
	rep := duetReport(t)
	rep.Mode = report.ModeRecord
	if got := roundsSection(rep); got != "" {
		t.Errorf("a recording has rounds: %.200s", got)
	}
	if got := roundsSection(&report.Report{}); got != "" {
		t.Errorf("a report without runs has rounds: %.200s", got)
	}
}

// TestRoundsCorruptNumbers: figures a hostile report.json can hold draw
// no NaN and no endless axis.
func TestRoundsCorruptNumbers(t *testing.T) {
	rep := duetReport(t)
	rep.Metrics[0].CI = [2]float64{math.Inf(-1), math.NaN()}
	rep.Runs[0].Figures.CPUMicrosPerRequest = 1e300
	rep.Runs[1].Seconds = append(rep.Runs[1].Seconds, report.Second{OffsetMs: 1e300, CPUNanos: math.MaxInt64, Requests: 1})
	section := string(roundsSection(rep))
	if strings.Contains(section, "NaN") || strings.Contains(section, "Inf") {
		t.Errorf("corrupt numbers reached the page:\n%s", section)
	}
	if len(section) > 200000 {
		t.Errorf("the section is %d bytes", len(section))
	}
}

func TestNiceAxis(t *testing.T) {
	for _, tt := range []struct {
		lo, hi       float64
		want         int
		ticks        []float64
		low, high    float64
		firstLabel   string
		labelsFormat func(float64, []float64) string
	}{
		{-3.9, 10, 5, []float64{-5, 0, 5, 10}, -5, 10, "-5", tickLabel},
		{-2, 2, 5, []float64{-2, -1, 0, 1, 2}, -2, 2, "-2", signedTick},
		{243, 447, 4, []float64{200, 300, 400, 500}, 200, 500, "200", tickLabel},
		{0.12, 0.31, 4, []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35}, 0.1, 0.35, "0.10", tickLabel},
		{1, 1, 4, []float64{0, 0.5, 1, 1.5, 2}, 0, 2, "0.0", tickLabel},
	} {
		ticks, low, high := niceAxis(tt.lo, tt.hi, tt.want)
		if len(ticks) != len(tt.ticks) || math.Abs(low-tt.low) > 1e-9 || math.Abs(high-tt.high) > 1e-9 {
			t.Errorf("niceAxis(%v, %v) = %v [%v, %v], want %v [%v, %v]", tt.lo, tt.hi, ticks, low, high, tt.ticks, tt.low, tt.high)
			continue
		}
		for i := range ticks {
			if math.Abs(ticks[i]-tt.ticks[i]) > 1e-9 {
				t.Errorf("niceAxis(%v, %v) = %v, want %v", tt.lo, tt.hi, ticks, tt.ticks)
			}
		}
		if got := tt.labelsFormat(ticks[0], ticks); got != tt.firstLabel {
			t.Errorf("first label of %v = %q, want %q", ticks, got, tt.firstLabel)
		}
	}
}
