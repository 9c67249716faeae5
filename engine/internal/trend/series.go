package trend

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/history"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// Trended reports whether a metric gets a series: every metric that can
// gate a pull request (the latency quantiles among them) and throughput.
// memory_peak is compared but never gates, and follows the garbage
// collector's pacing as much as the code.
func Trended(m *metric.Metric) bool {
	return m == metric.Throughput || (m.Compared() && m.Gate.Key != "")
}

// buildSeries puts the valid entries' summaries into one series per
// trended metric and machine (one per metric for portable metrics), in
// time order. An invalid recording's numbers never enter a series.
func buildSeries(entries []history.Entry) []Series {
	var out []Series
	for _, m := range metric.Catalog {
		if !Trended(m) {
			continue
		}
		groups := map[string]*Series{}
		var order []string
		for _, e := range entries {
			if e.Verdict != report.Pass {
				continue
			}
			s, ok := e.Metrics[m.Name]
			if !ok || s.N == 0 {
				continue
			}
			machine := e.Fingerprint.Machine
			if m.Portable {
				machine = ""
			}
			g := groups[machine]
			if g == nil {
				g = &Series{Metric: m.Name, Unit: m.Unit, Machine: machine, MachineDescription: describeMachine(e.Fingerprint, m.Portable)}
				groups[machine] = g
				order = append(order, machine)
			}
			point := Point{Commit: e.Commit, Label: e.Label, Time: e.Time, Median: s.Median, Low: s.Low, High: s.High, Artifact: e.Artifact}
			if n := len(g.Points); n > 0 {
				point.Paired, point.functions = linkOf(e, m, g.Points[n-1].Commit)
			}
			g.Points = append(g.Points, point)
		}
		// The longest series first: it is the machine the nightly job
		// usually gets.
		sort.SliceStable(order, func(i, j int) bool { return len(groups[order[i]].Points) > len(groups[order[j]].Points) })
		for _, machine := range order {
			g := groups[machine]
			g.Spread = spread(g.Points, m.Scale == metric.Relative)
			g.Chain = chainOf(g.Points)
			g.PairedSpread = pairedSpread(g.Points)
			out = append(out, *g)
		}
	}
	return out
}

// describeMachine says in words what a series' entries share.
func describeMachine(f history.Fingerprint, portable bool) string {
	if portable {
		return "all machines (allocation counts do not depend on the machine)"
	}
	var parts []string
	cpu := f.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	parts = append(parts, fmt.Sprintf("%s ×%d", cpu, f.CPUs))
	if f.Target != "" {
		parts = append(parts, f.Target)
	}
	if f.Confinement != "" {
		parts = append(parts, f.Confinement)
	}
	if f.CPUMillicores > 0 {
		parts = append(parts, fmt.Sprintf("%dm CPU", f.CPUMillicores))
	}
	if f.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d MiB", f.MemoryBytes>>20))
	}
	return strings.Join(parts, ", ")
}

// spread is the medians' night-to-night spread: 1.4826 × their median
// absolute deviation, on a log scale for relative metrics.
func spread(points []Point, relative bool) float64 {
	xs := make([]float64, 0, len(points))
	for _, p := range points {
		switch {
		case !relative:
			xs = append(xs, p.Median)
		case p.Median > 0:
			xs = append(xs, math.Log(p.Median))
		}
	}
	return robustSD(xs)
}

// pairedSpread is robustSD of the paired nights' log ratios.
func pairedSpread(points []Point) float64 {
	var xs []float64
	for _, j := range chainLinks(points) {
		xs = append(xs, math.Log1p(points[j].Paired.Estimate))
	}
	return robustSD(xs)
}

// robustSD is 1.4826 × the median absolute deviation of xs (the standard
// deviation, for normal values, unmoved by a step or two); 0 below two.
func robustSD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mid := stats.Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - mid)
	}
	return 1.4826 * stats.Median(dev)
}
