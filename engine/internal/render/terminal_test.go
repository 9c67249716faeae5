package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestText pins the terminal summary that ends perfgate gate, run and
// compare, byte for byte, for each shape of report: the benchstat table or
// the medians, the paired table with its reported-only footnote, the
// largest functions, hints, the method sentence, a recording and a gate
// that measured nothing valid.
func TestTerminal(t *testing.T) {
	withExtras := func(rep *report.Report) *report.Report {
		rep.Functions = append(rep.Functions,
			report.Function{Profile: "allocs", Name: "strings.Builder.grow", Kind: "flat", Unit: "allocs/req", Head: 3, Delta: 3, Status: "new"},
			report.Function{Profile: "allocs", Name: "bytes.growSlice", Kind: "flat", Unit: "allocs/req", Base: 4, Head: 2.5, Delta: -1.5, Status: "changed"},
			report.Function{Profile: "allocs", Name: "cut.AfterTheThird", Kind: "flat", Unit: "allocs/req", Head: 1, Delta: 1, Status: "new"},
			report.Function{Profile: "allocs", Name: "main.main", Kind: "cum", Unit: "allocs/req", Head: 40, Delta: 33, Status: "changed"},
			report.Function{Profile: "cpu", Name: "runtime.mallocgc", Kind: "flat", Unit: "µs/req", Base: 12000, Head: 15250.5, Delta: 3250.5, Status: "changed"})
		rep.Benchstat = append(rep.Benchstat,
			report.BenchRow{Metric: "cpu-ns/req", Base: 373700, BaseRange: "1%", Head: 373700, HeadRange: "1%", Delta: "~", P: 1, Note: "p=1.000 n=10", Warnings: []string{"all samples are equal"}},
			report.BenchRow{Metric: "p50-ns", Base: 520000, BaseRange: "2%", Head: 519000, HeadRange: "3%", Delta: "~", P: 0.8, Note: "p=0.800 n=10", Warnings: []string{"all samples are equal", "all samples are equal"}})
		rep.Hints = []report.Hint{
			{Rule: "fmt-hot-path", Message: "fmt.Sprintf allocates 11 more times per request", Evidence: "allocs profile, flat fmt.Sprintf: 0 → 11.03"},
			{Rule: "heap-growth", Message: "the live heap grows", Evidence: "heap +78.12 KiB/1k req"},
		}
		return rep
	}
	medians := func(rep *report.Report) *report.Report {
		rep.Benchstat = nil
		rep.Summary = []report.Median{
			{Name: "cpu", Unit: "µs/req", Base: 373.7, Head: 381.9, Delta: 0.0219, BaseRuns: 10, HeadRuns: 10},
			{Name: "allocs", Unit: "allocs/req", Base: 89.4, Head: 122.6, Delta: 0.371, BaseRuns: 10, HeadRuns: 10},
			{Name: "errors", Unit: "ratio", Base: 0.0004, HeadRuns: 0, BaseRuns: 10},
			{Name: "heap", Unit: "B/1k req", Base: 310, Head: 80310, Delta: 80000, BaseRuns: 10, HeadRuns: 10},
			{Name: "from_the_future", Unit: "widgets", Base: 2, Head: 3, Delta: 0.5, BaseRuns: 1, HeadRuns: 1},
		}
		return rep
	}
	invalid := &report.Report{Schema: 1, Verdict: report.Invalid, Seed: 7,
		Reason: "invalid measurement: only 0 of 2 pairs have both runs valid; head: OOM-killed (memory limit 8Mi) ×2"}
	for _, tt := range []struct {
		golden string
		rep    *report.Report
	}{
		{"regression.txt", withExtras(regressionReport())},
		{"medians.txt", medians(regressionReport())},
		{"duet.txt", duetReport(t)},
		{"recording.txt", recordingReport()},
		{"invalid.txt", invalid},
	} {
		var b strings.Builder
		Terminal(&b, tt.rep, "results/")
		golden(t, tt.golden, b.String())
	}
}
