package trend

import (
	"fmt"
	"hash/fnv"

	"github.com/perfgate/perfgate/engine/internal/changepoint"
	"github.com/perfgate/perfgate/engine/internal/metric"
)

// Directions of a step, by the metric's sense.
const (
	Regression  = "regression"
	Improvement = "improvement"
)

// findSteps runs change-point detection on each series' medians and reads
// the steps of its paired nights (paired.go). Relative metrics are
// searched on their logarithm with s.MinMagnitude as the smallest step;
// absolute ones (errors, goroutines, heap) with their gate threshold
// (s.Gate) as the smallest step, in their unit. A machine-dependent
// metric (CPU, latency) whose series has paired nights is read from them
// alone: its medians drift with the machine from night to night.
func findSteps(series []Series, s Settings) []string {
	var warnings []string
	for i := range series {
		sr := &series[i]
		m, ok := metric.Lookup(sr.Metric)
		if !ok {
			continue
		}
		var paired []Step
		sr.Detection = DetectMedians
		if w := shortNights(sr, s.Alpha); w != "" {
			warnings = append(warnings, w)
		}
		if hasLinks(sr, s.Alpha) {
			paired = pairedSteps(sr, m, s)
			sr.Detection = DetectBoth
			if !m.Portable {
				sr.Detection, sr.Steps = DetectPaired, paired
				continue
			}
		}
		steps, err := medianSteps(sr, m, s)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s on %s: no change-point search: %v", sr.Metric, sr.MachineDescription, err))
		}
		sr.Steps = mergeSteps(steps, paired)
	}
	return warnings
}

// medianSteps are the change points of a series' medians.
func medianSteps(sr *Series, m *metric.Metric, s Settings) ([]Step, error) {
	xs := make([]float64, len(sr.Points))
	for j, p := range sr.Points {
		xs[j] = p.Median
	}
	o := changepoint.Options{Alpha: s.Alpha, MinSegment: s.MinSegment, Relative: m.Scale == metric.Relative, Seed: seedOf(sr)}
	o.MinMagnitude = s.MinMagnitude
	if !o.Relative {
		o.MinMagnitude = m.Threshold(s.Gate)
	}
	changes, err := changepoint.Detect(xs, o)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, c := range changes {
		steps = append(steps, Step{
			Index: c.Index, Before: sr.Points[c.Index-1].Commit, After: sr.Points[c.Index].Commit,
			BeforeLevel: c.Before, AfterLevel: c.After, Magnitude: c.Magnitude, P: c.P,
			Direction: direction(m, c.Magnitude),
		})
	}
	return steps, nil
}

// direction is whether a change of m by magnitude is for the worse.
func direction(m *metric.Metric, magnitude float64) string {
	if (magnitude > 0) != m.HigherIsBetter {
		return Regression
	}
	return Improvement
}

// seedOf makes the permutation test's draws depend only on the series, so
// the same history gives the same steps every night.
func seedOf(s *Series) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%d", s.Metric, s.Machine, len(s.Points))
	return h.Sum64()
}
