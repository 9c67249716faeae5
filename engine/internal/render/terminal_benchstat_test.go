package render

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/benchtable"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestPrintBenchstat prints benchtable's rows for real runs: benchmath's
// warning for identical samples appears once per metric, after the table.
func TestPrintBenchstat(t *testing.T) {
	var runs []report.Run
	for i, allocs := range []float64{89.1, 89.4, 89.2, 89.5, 89.3, 89.6} {
		for _, side := range []string{"base", "head"} {
			a := allocs
			if side == "head" {
				a *= 1.37
			}
			runs = append(runs, report.Run{Side: side, Pair: i + 1, Valid: true, Figures: report.Figures{
				CPUSource: "cgroup", CPUMicrosPerRequest: 100, AllocsPerRequest: &a}})
		}
	}
	var b strings.Builder
	printBenchstat(&b, benchtable.Rows(runs))
	out := b.String()
	if !strings.Contains(out, "allocs/req") || strings.Count(out, "cpu-ns/req: all samples are equal") != 1 {
		t.Errorf("printed table:\n%s", out)
	}
}
