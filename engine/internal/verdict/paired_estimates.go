package verdict

import (
	"math"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// PairedLevel is the coverage of a paired recording's intervals. Trend
// reads one night's paired estimate as a step when its interval excludes
// no change, so the interval is as strict as trend's change-point search
// (p ≤ 0.001, trend.DefaultAlpha): one false step in a thousand nights per
// metric, whatever the gate's alpha.
const PairedLevel = 0.999

// MinPairedRounds is the fewest rounds whose signed-rank interval can reach
// PairedLevel: n rounds all on one side happen by chance 2/2^n of the
// time, 0.00098 at 11 (RoundsFor(1 − PairedLevel)).
const MinPairedRounds = 11

// RoundsFor is the fewest rounds whose signed-rank interval can miss zero
// by chance at most alpha (two-sided): 2/2^n ≤ alpha.
func RoundsFor(alpha float64) int {
	n := 1
	for 2/math.Pow(2, float64(n)) > alpha {
		n++
	}
	return n
}

// PairedEstimates are a paired recording's estimates of head against base:
// for each relative metric compared round by round (not counted events),
// the Hodges–Lehmann estimate of the valid rounds' log ratios and its
// exact interval at PairedLevel, both as fractions. No threshold enters:
// a night's change is measured, not decided.
func PairedEstimates(runs []report.Run) []report.PairedEstimate {
	var out []report.PairedEstimate
	for _, in := range statsInputs(runs, config.Gate{}) {
		if in.Scale != stats.Relative {
			continue
		}
		d := make([]float64, 0, len(in.Base))
		for i, b := range in.Base {
			if h := in.Head[i]; b > 0 && h > 0 {
				d = append(d, math.Log(h/b))
			}
		}
		if len(d) < 2 {
			continue
		}
		e := stats.HodgesLehmann(d, (1-PairedLevel)/2)
		out = append(out, report.PairedEstimate{
			Name: in.Name, Estimate: math.Expm1(e.Center), CI: [2]float64{math.Expm1(e.Low), math.Expm1(e.High)},
			Level: e.Level, Pairs: len(d),
		})
	}
	return out
}
