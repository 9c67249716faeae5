package render

import (
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// The golden comments are rendered from reports of real runs
// (testdata/real/*.json.gz, written by scripts/goldens.sh), never from
// numbers typed into a test: a comment built from invented numbers can
// contradict itself (500 req/s in one place and 300 in another) without
// any test noticing. TestCommentAgreesWithReport reads each comment as a
// reviewer would and checks its numbers against report.json's fields.

// realScenarios are the runs scripts/goldens.sh records.
var realScenarios = []string{"regression", "pass", "inconclusive", "improvement", "endpoint", "invalid", "recording"}

// realReport reads the report of a real run.
func realReport(t *testing.T, scenario string) *report.Report {
	t.Helper()
	f, err := os.Open("testdata/real/" + scenario + ".json.gz")
	if err != nil {
		t.Fatalf("%v (scripts/goldens.sh records it)", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReadReport(z)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// shownNumber matches a number as the comment shows it, with its sign and
// the unit after it: "+37.0%", "373.7 µs", "78.12 KiB", "+0.10 pp".
var shownNumber = regexp.MustCompile(`([+-]?\d+(?:\.\d+)?)\s?(%|pp|µs|ms|KiB|MiB|GiB|B|allocs|goroutines)?`)

// parseShown reads one figure of the comment back into report.json's
// units (fractions for %, bytes, milliseconds for latency in µs when
// latency is true) and says how far off it may be: half a unit of its
// last digit.
func parseShown(s string, latency bool) (value, tolerance float64, ok bool) {
	m := shownNumber.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, 0, false
	}
	decimals := 0
	if i := strings.IndexByte(m[1], '.'); i >= 0 {
		decimals = len(m[1]) - i - 1
	}
	scale := 1.0
	switch m[2] {
	case "%", "pp":
		scale = 0.01
	case "KiB":
		scale = 1024
	case "MiB":
		scale = 1 << 20
	case "GiB":
		scale = 1 << 30
	case "µs":
		if latency {
			scale = 0.001
		}
	}
	return v * scale, 0.5 * math.Pow(10, -float64(decimals)) * scale * 1.0001, true
}

// disagreements collects what a comment says that report.json does not.
type disagreements []string

func (d *disagreements) Errorf(format string, args ...any) {
	*d = append(*d, fmt.Sprintf(format, args...))
}

// agrees checks that a figure shown in the comment is value.
func (d *disagreements) agrees(where, shown string, value float64, latency bool) {
	d.agreesIn(where, shown, value, latency, "")
}

// agreesIn is agrees for a value report.json keeps in unit: a figure shown
// in that unit (a peak memory of "7.471 MiB", kept in MiB) is not scaled.
func (d *disagreements) agreesIn(where, shown string, value float64, latency bool, unit string) {
	got, tol, ok := parseShown(shown, latency)
	if m := shownNumber.FindStringSubmatch(strings.TrimSpace(shown)); ok && m != nil && m[2] != "" && m[2] != "%" && m[2] != "pp" && strings.HasPrefix(unit, m[2]) {
		got, tol, _ = parseShown(m[1], latency)
	}
	if !ok {
		d.Errorf("%s: %q is not a figure", where, shown)
		return
	}
	if math.Abs(got-value) > tol {
		d.Errorf("%s shows %q, but report.json says %v", where, shown, value)
	}
}

// agreesRow checks a table row's median of base, median of head, paired
// change and interval ("low to high", a level in parentheses after it
// allowed) against the metric's.
func (d *disagreements) agreesRow(name string, m report.Metric, base, head, change, interval string) {
	latency := isLatency(m.Name)
	d.agreesIn(name+" base", base, m.Base, latency, m.Unit)
	d.agreesIn(name+" head", head, m.Head, latency, m.Unit)
	d.agreesIn(name+" change", change, m.Delta, latency, m.Unit)
	interval, _, _ = strings.Cut(interval, " (")
	low, high, found := strings.Cut(interval, " to ")
	if !found {
		d.Errorf("%s interval %q is not \"low to high\"", name, interval)
		return
	}
	if metric.Of(m).Scale != metric.Relative && !strings.ContainsAny(low, "%pBKMG") {
		low += strings.TrimLeft(high, "+-0123456789.")
	}
	d.agreesIn(name+" interval, low", low, m.CI[0], latency, m.Unit)
	d.agreesIn(name+" interval, high", high, m.CI[1], latency, m.Unit)
}

// metricByTitle finds the metric a first-screen row names.
func metricByTitle(rep *report.Report, title string) (report.Metric, bool) {
	for _, m := range rep.Metrics {
		if strings.EqualFold(titleOf(m), title) {
			return m, true
		}
	}
	return report.Metric{}, false
}

// endpointMetric finds the metric a request table row names: the request
// line ("GET /path") and the metric's title.
func endpointMetric(rep *report.Report, line, title string) (report.Metric, bool) {
	for _, e := range rep.Endpoints {
		if e.Method+" "+e.Path != line {
			continue
		}
		for _, m := range e.Metrics {
			if strings.EqualFold(titleOf(m), title) {
				return m, true
			}
		}
	}
	return report.Metric{}, false
}

// endpointMedian finds the median-only figure a request table row names.
func endpointMedian(rep *report.Report, line, title string) (report.Median, bool) {
	for _, e := range rep.Endpoints {
		if e.Method+" "+e.Path != line {
			continue
		}
		for _, md := range e.Summary {
			if strings.EqualFold(titleOfName(md.Name), title) {
				return md, true
			}
		}
	}
	return report.Median{}, false
}

// tableRows are the cells of the rows of the Markdown table whose header
// starts with header.
func tableRows(md, header string) [][]string {
	var rows [][]string
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, header) {
			continue
		}
		for _, row := range lines[i+2:] {
			if !strings.HasPrefix(row, "|") {
				break
			}
			cells := strings.Split(strings.Trim(row, "|"), " | ")
			for j := range cells {
				cells[j] = strings.TrimSpace(cells[j])
			}
			rows = append(rows, cells)
		}
		break
	}
	return rows
}

// commentDisagreements is what TestCommentAgreesWithReport finds wrong in
// one comment.
func commentDisagreements(rep *report.Report, md string) disagreements {
	var t disagreements
	// The first screen's rows: every gating metric that did not come out
	// unchanged, each with report.json's medians, change, interval and
	// outcome.
	shownRows := map[string]bool{}
	for _, cells := range tableRows(md, "| gating metric |") {
		if len(cells) != 6 {
			t.Errorf("first-screen row %q has %d cells, want 6", cells, len(cells))
			continue
		}
		m, ok := metricByTitle(rep, cells[0])
		if !ok {
			t.Errorf("first-screen row %q names no metric of report.json", cells[0])
			continue
		}
		shownRows[m.Name] = true
		t.agreesRow(cells[0], m, cells[1], cells[2], cells[3], cells[4])
		if !strings.HasSuffix(cells[5], m.Outcome) {
			t.Errorf("%s outcome %q, report.json says %s", cells[0], cells[5], m.Outcome)
		}
	}
	for _, m := range rep.Metrics {
		zero := m.Base == 0 && m.Head == 0 && m.CI == [2]float64{}
		if m.Gates && m.Outcome != "unchanged" && !zero && !shownRows[m.Name] && !rep.Recording() {
			t.Errorf("the first screen has no row for %s, %s in report.json", m.Name, m.Outcome)
		}
	}
	// The statistics' table: p and the interval's level per metric.
	for _, cells := range tableRows(md, "| metric | base (median) | head (median) | Δ (paired) | confidence interval | p |") {
		m, ok := metricByTitle(rep, cells[0])
		if !ok {
			t.Errorf("statistics row %q names no metric of report.json", cells[0])
			continue
		}
		t.agreesRow("statistics: "+cells[0], m, cells[1], cells[2], cells[3], cells[4])
		if want := metric.PValue(m.ShownP()); cells[5] != want {
			t.Errorf("%s p %q, report.json says %s", cells[0], cells[5], want)
		}
		if want := "(" + metric.Percent(m.CILevel) + ")"; !strings.HasSuffix(cells[4], want) {
			t.Errorf("%s interval %q is not at report.json's level %s", cells[0], cells[4], want)
		}
	}
	// The request lines' table: each row's figures are its endpoint's.
	request := ""
	for _, cells := range tableRows(md, "| request | metric | base (median) | head (median) | Δ (paired) | confidence interval | p |") {
		if cells[0] != "" { // a request's first row names it; its others are blank there
			line, _, _ := strings.Cut(cells[0], "<br>")
			request = strings.Trim(line, "`")
		}
		cells[0] = request
		m, ok := endpointMetric(rep, request, cells[1])
		if md, median := endpointMedian(rep, request, cells[1]); !ok && median {
			// A "median only" row: medians and their change, no interval.
			where := "request " + request + " " + cells[1]
			t.agreesIn(where+" base", cells[2], md.Base, isLatency(md.Name), md.Unit)
			t.agreesIn(where+" head", cells[3], md.Head, isLatency(md.Name), md.Unit)
			t.agreesIn(where+" change", cells[4], md.Delta, isLatency(md.Name), md.Unit)
			continue
		}
		if !ok {
			t.Errorf("request row %q %q names no endpoint metric of report.json", cells[0], cells[1])
			continue
		}
		t.agreesRow("request "+cells[0]+" "+cells[1], m, cells[2], cells[3], cells[4], cells[5])
		if want := metric.PValue(m.ShownP()); cells[6] != want {
			t.Errorf("request %s %s p %q, report.json says %s", cells[0], cells[1], cells[6], want)
		}
	}
	// The footer: the rounds that counted, the window, the rate, the
	// limits, GOMAXPROCS and alpha as report.json has them.
	if footer := regexp.MustCompile(`<sub>(\d+) valid (?:rounds?|pairs?) × (\S+) at (\S+) req/s · cpu (\S+), memory (\S+?)(?:, GOMAXPROCS (\d+))? ·.* alpha (\S+)</sub>`).FindStringSubmatch(md); footer != nil {
		valid := 0
		for _, r := range roundsOf(rep.Runs) {
			if r.valid() {
				valid++
			}
		}
		for _, c := range []struct{ what, shown, want string }{
			{"valid rounds", footer[1], strconv.Itoa(valid)},
			{"window", footer[2], rep.Config.Load.Duration.String()},
			{"rate", footer[3], fmt.Sprint(rep.Config.Load.Rate)},
			{"cpu", footer[4], rep.Config.Resources.CPU.String()},
			{"memory", footer[5], rep.Config.Resources.Memory.String()},
			{"alpha", footer[7], fmt.Sprint(rep.Config.Gate.Alpha)},
		} {
			if c.shown != c.want {
				t.Errorf("the footer's %s is %s, report.json says %s", c.what, c.shown, c.want)
			}
		}
		if footer[6] != "" && footer[6] != strconv.Itoa(rep.Environment.GOMAXPROCS) {
			t.Errorf("the footer's GOMAXPROCS is %s, report.json says %d", footer[6], rep.Environment.GOMAXPROCS)
		}
	} else if !rep.Recording() && len(rep.Runs) > 0 {
		t.Errorf("the comment has no footer saying what was measured")
	}
	// Every rate the comment states is the configured one.
	for _, m := range regexp.MustCompile(`at (\d+) req/s`).FindAllStringSubmatch(md, -1) {
		if m[1] != fmt.Sprint(rep.Config.Load.Rate) {
			t.Errorf("the comment says %s req/s; load.rate is %v", m[1], rep.Config.Load.Rate)
		}
	}
	// The headline's change is the metric's, and its amount the same
	// change in the metric's unit (not the medians' difference).
	if h := regexp.MustCompile(`\*\*([A-Z][a-z ]+[a-z]) ([+-]\d+\.\d%)(?: \(([+-][^)]+)\))?`).FindStringSubmatch(md); h != nil {
		if m, ok := metricByTitle(rep, h[1]); ok {
			t.agrees("the headline", h[2], m.Delta, false)
			if h[3] != "" {
				t.agrees("the headline's amount", h[3], m.Base*m.Delta, isLatency(m.Name))
			}
		} else {
			t.Errorf("the headline names %q, no metric of report.json", h[1])
		}
	}
	return t
}

// TestCommentAgreesWithReport renders every real run's comment and checks
// its numbers against its report.json; it also checks the checker, on
// comments whose numbers were changed after rendering.
func TestCommentAgreesWithReport(t *testing.T) {
	for _, scenario := range realScenarios {
		t.Run(scenario, func(t *testing.T) {
			rep := realReport(t, scenario)
			for _, d := range commentDisagreements(rep, Markdown(rep)) {
				t.Error(d)
			}
		})
	}
	rep := realReport(t, "regression")
	md := Markdown(rep)
	allocs, _ := findMetric(rep, metric.Allocs)
	shownAllocs := metric.Allocs.FormatChange(allocs.Delta)
	for _, tampered := range []string{
		strings.Replace(md, fmt.Sprintf(" at %v req/s", rep.Config.Load.Rate), " at 500 req/s", 1),
		strings.Replace(md, "| "+shownAllocs+" |", "| +1.0% |", 1),
		regexp.MustCompile(`<sub>\d+ valid`).ReplaceAllString(md, "<sub>1000 valid"),
		strings.Replace(md, fmt.Sprintf("(%s)**", metric.Allocs.FormatAmount(allocs.Base*allocs.Delta)), "(+1 allocs/req)**", 1),
		// The statistics' table: a median, and a request line's change.
		regexp.MustCompile(`(\| Allocations per request \| )[0-9.]+`).ReplaceAllString(md, "${1}1.5"),
		regexp.MustCompile(`(\| P90 latency \| [^|]+\| [^|]+\| )[+-][0-9.]+%`).ReplaceAllString(md, "${1}+99.9%"),
	} {
		if tampered == md {
			t.Fatal("the tampering did not change the comment; update the test to the regression run's comment")
		}
		if len(commentDisagreements(rep, tampered)) == 0 {
			t.Errorf("the check accepted a tampered comment:\n%s", tampered)
		}
	}
}
