package endpoint

import (
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/stats"
	"github.com/perfgate/perfgate/engine/internal/verdict"
)

// Quantities are the catalog metrics each endpoint is shown with, in table
// order. Taking them from the catalog keeps an endpoint's scale, threshold
// and formatting those of the mix's metric: latency quantiles as
// log-ratios against gate.latency (or the reporting threshold), the error
// rate as an absolute difference against gate.errors, and throughput,
// which the catalog only summarises, as medians.
var Quantities = []*metric.Metric{metric.LatencyP50, metric.LatencyP90, metric.LatencyP99, metric.Errors, metric.Throughput}

// Compare compares every request line of cfg's load over the valid pairs
// of runs, reading each run's results file under out. The statistics are
// the metrics' own (stats.Outcomes at the look the valid pairs reached,
// verdict.Plan), with every input non-gating: the look's level without
// Holm's correction, and nothing here can change the verdict or the
// gating family. It returns nil with fewer than two lines (the metrics
// already are the one line), and a warning per results file it could not
// use, whose pair is then left out of every endpoint.
func Compare(out string, runs []report.Run, cfg *config.Config) ([]report.Endpoint, []error) {
	lines := Lines(cfg.Load.Requests)
	pairs := verdict.ValidPairs(runs)
	if len(lines) < 2 || len(pairs) == 0 {
		return nil, nil
	}
	var warnings []error
	// sides[i][s] are line i's figures of side s (0 base, 1 head) in the
	// pairs where both sides answered it.
	sides := make([][2][]report.Figures, len(lines))
	for _, p := range pairs {
		var read [2]RunFigures
		ok := true
		for s, r := range p {
			path := filepath.Join(out, r.Dir, load.ResultsFile)
			f, err := Read(path, lines, r.Load.Duration+r.Load.Wait)
			if err != nil {
				warnings = append(warnings, fmt.Errorf("pair %d left out of the endpoints: %w", p[0].Pair, err))
				ok = false
				break
			}
			if f.Unmatched > 0 {
				warnings = append(warnings, fmt.Errorf("%s: %d results match no request line of load.requests; left out of the endpoints", filepath.Join(r.Dir, load.ResultsFile), f.Unmatched))
			}
			read[s] = f
		}
		if !ok {
			continue
		}
		for i := range lines {
			b, h := read[0].Lines[i], read[1].Lines[i]
			if b.Requests > 0 && h.Requests > 0 {
				sides[i][0], sides[i][1] = append(sides[i][0], b), append(sides[i][1], h)
			}
		}
	}
	return compare(lines, sides, cfg, len(pairs)), warnings
}

// compare runs the statistics of every line's quantities at once (none
// gates, so each is tested on its own) after n valid pairs.
func compare(lines []Line, sides [][2][]report.Figures, cfg *config.Config, n int) []report.Endpoint {
	var inputs []stats.Input
	var owner []int // owner[k] is the line of inputs[k]
	endpoints := make([]report.Endpoint, len(lines))
	for i, l := range lines {
		base, head := sides[i][0], sides[i][1]
		e := report.Endpoint{Method: l.Method, Path: l.Path, Pairs: len(base),
			BaseRequests: stats.Median(requests(base)), HeadRequests: stats.Median(requests(head))}
		for _, m := range Quantities {
			b, h := values(m, base), values(m, head)
			if !m.Compared() {
				if len(b) > 0 {
					e.Summary = append(e.Summary, median(m, b, h))
				}
				continue
			}
			if len(b) > 0 {
				inputs = append(inputs, stats.Input{Name: m.Name, Unit: m.Unit, Base: b, Head: h,
					Scale: verdict.StatsScale(m.Scale), Threshold: m.Threshold(cfg.Gate), Gates: false})
				owner = append(owner, i)
			}
		}
		endpoints[i] = e
	}
	for k, r := range stats.Outcomes(inputs, verdict.Plan(cfg), n) {
		e := &endpoints[owner[k]]
		e.Metrics = append(e.Metrics, verdict.ReportMetric(r))
	}
	for i := range endpoints {
		if endpoints[i].Metrics == nil {
			endpoints[i].Metrics = []report.Metric{}
		}
	}
	return endpoints
}

// values are m of each run's figures (all of the figures' quantities are
// always measured).
func values(m *metric.Metric, figures []report.Figures) []float64 {
	var vs []float64
	for _, f := range figures {
		if v, ok := m.Value(f); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

func requests(figures []report.Figures) []float64 {
	vs := make([]float64, len(figures))
	for i, f := range figures {
		vs[i] = float64(f.Requests)
	}
	return vs
}

// median is a quantity the catalog only summarises, as report.json's
// summary records one.
func median(m *metric.Metric, base, head []float64) report.Median {
	md := report.Median{Name: m.Name, Unit: m.Unit, Base: stats.Median(base), Head: stats.Median(head), BaseRuns: len(base), HeadRuns: len(head)}
	md.Delta, _ = m.Change(md.Base, md.Head)
	return md
}
