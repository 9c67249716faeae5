package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// The functions table shows deltas like every other table (metric.Signed):
// whole numbers from 1000 up and no exponent, where printf's %g wrote
// +1.235e+04 and -1.2e-05.
func TestFunctionsTableNumbersReadLikeTheOtherTables(t *testing.T) {
	var b strings.Builder
	printFunctions(&b, []report.Function{
		{Profile: "allocs", Unit: "B/req", Kind: "flat", Delta: 12345.6, Status: "changed", Name: "encoding/json.Marshal"},
		{Profile: "allocs", Unit: "B/req", Kind: "cum", Delta: 99999, Status: "changed", Name: "not shown: cumulative"},
		{Profile: "cpu", Unit: "µs/req", Kind: "flat", Delta: -0.000012, Status: "gone", Name: "runtime.unlock"},
	}, 3)
	want := "  allocs (B/req):\n" +
		"          +12346  changed encoding/json.Marshal\n" +
		"  cpu (µs/req):\n" +
		"       -0.000012  gone    runtime.unlock\n"
	if b.String() != want {
		t.Errorf("functions table:\n%s\nwant:\n%s", b.String(), want)
	}
}
