// Package metric is perfgate's one list of what it measures per run: for
// each figure its stable name (report.json's summary and metrics), unit,
// where it comes from in a run's figures, how its change is compared and
// shown, whether and by what threshold it gates, and how it is written for
// benchstat. The verdict, the medians, the bench files, the benchstat
// table, the hints and every renderer iterate Catalog, so adding a metric
// is one entry (catalog.go) and renaming one cannot silently turn a hint
// off.
package metric

import (
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// Side is one of the two trees an experiment compares, as report.json
// (runs[].side) and the results directory (base/, head.cpu.pb.gz) name it.
type Side string

const (
	Base Side = "base"
	Head Side = "head"
)

// Sides are both sides, in the order results are written.
var Sides = []Side{Base, Head}

// SideOf is the side a run was measured on.
func SideOf(r report.Run) Side { return Side(r.Side) }

// Scale is how a metric's change is measured, as report.json's
// metrics[].scale names it.
type Scale string

const (
	// Relative metrics compare log(head/base): ratios are symmetric, and
	// run-to-run drift scales with the value. Changes are fractions.
	Relative Scale = "relative"
	// Absolute metrics compare head − base: for values that can be 0 or
	// negative (an error rate, what a leak retains). Changes are in the
	// metric's unit.
	Absolute Scale = "absolute"
)

// Metric is one entry of the catalog.
type Metric struct {
	// Name is the stable name in report.json; never rename one.
	Name string
	// Unit is the unit of Value's result, as report.json records it.
	Unit string
	// Title is what a reviewer calls it in a sentence: "allocations per
	// request", not "allocs".
	Title string
	// Value reads the metric from one run's figures; ok is false when the
	// run did not measure it (no MemStats, no pprof, a crashed run). nil
	// for Failures alone, which counts rounds.
	Value func(report.Figures) (v float64, ok bool)
	// AllRounds metrics are compared over every gating round in which both
	// sides were measured, valid or not; the others over the valid rounds
	// alone.
	AllRounds bool
	// Events, for a metric that counts events (failed requests, goroutines
	// left alive), reads a run's count and what it is a count of, in the
	// unit's terms (requests, or thousands of them for "per 1k req"): the
	// statistics pool the rounds' counts (stats.Count) instead of ranking
	// per-round rates that are mostly 0.
	Events func(report.Figures) (count, exposure float64, ok bool)
	Scale  Scale
	// Display says how values and absolute changes read.
	Display Display
	// Gate is how the metric takes part in the paired comparison; nil
	// for figures that are only summarised as medians.
	Gate *Gate
	// Portable metrics read the same on any machine (allocation counts
	// depend on the code, not the CPU): a nightly trend puts entries from
	// different machines in one series only for them.
	Portable bool
	// HigherIsBetter is true for metrics where a rise is an improvement
	// (throughput); for all others a rise is a regression.
	HigherIsBetter bool
	// Bench is how the metric is written in bench/<side>.txt and the
	// benchstat table; nil for figures benchstat cannot compare
	// (relative changes of values near 0).
	Bench *Bench
}

// Gate is a compared metric's threshold from perfgate.yml's gate section.
type Gate struct {
	// Key is the perfgate.yml field the threshold comes from.
	Key       string
	Threshold func(config.Gate) float64
	// Gates says whether the metric takes part in the verdict; nil means
	// always. A metric that does not gate is still compared and shown,
	// its outcome measured against Threshold.
	Gates func(config.Gate) bool
}

// Bench is a metric in the Go benchmark format: one value per run, in
// Unit (which benchstat reads, so it has no spaces), Factor times Value,
// written with Digits decimals.
type Bench struct {
	Unit   string
	Factor float64
	Digits int
}

// Compared reports whether the metric is compared pair by pair.
func (m *Metric) Compared() bool { return m.Gate != nil }

// Threshold is the smallest change of m that matters under g (a fraction
// for relative metrics, an amount in Unit for absolute ones).
func (m *Metric) Threshold(g config.Gate) float64 { return m.Gate.Threshold(g) }

// Gates reports whether m takes part in the verdict under g.
func (m *Metric) Gates(g config.Gate) bool {
	return m.Gate != nil && (m.Gate.Gates == nil || m.Gate.Gates(g))
}

// Values are m over side's compared runs (valid, not a duet's profile
// round) that measured it, in run order.
func (m *Metric) Values(runs []report.Run, side Side) []float64 {
	var vs []float64
	for _, r := range runs {
		if SideOf(r) == side && r.Compared() {
			if v, ok := m.Value(r.Figures); ok {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// Change is the difference between two values on m's scale: (head −
// base) / base for relative metrics, head − base for absolute ones. ok is
// false when a relative change has no base to divide by.
func (m *Metric) Change(base, head float64) (change float64, ok bool) {
	if m.Scale == Absolute {
		return head - base, true
	}
	if base == 0 {
		return 0, false
	}
	return (head - base) / base, true
}

// Lookup finds a catalog metric, or Failures, by its report.json name.
func Lookup(name string) (*Metric, bool) {
	for _, m := range Catalog {
		if m.Name == name {
			return m, true
		}
	}
	if name == Failures.Name {
		return Failures, true
	}
	return nil, false
}

// Of is the catalog entry a report.json metric describes, or, for a
// metric this perfgate does not know (a report from another version), an
// entry built from what the report says of it, so it still renders.
func Of(m report.Metric) *Metric {
	if c, ok := Lookup(m.Name); ok && c.Unit == m.Unit && string(c.Scale) == m.Scale {
		return c
	}
	return unknown(m.Name, m.Unit, Scale(m.Scale))
}

// OfMedian is Of for a median of report.json's summary.
func OfMedian(md report.Median) *Metric {
	if c, ok := Lookup(md.Name); ok && c.Unit == md.Unit {
		return c
	}
	return unknown(md.Name, md.Unit, Relative)
}

func unknown(name, unit string, scale Scale) *Metric {
	if scale != Absolute {
		scale = Relative
	}
	display := Decimal
	if unit == "ratio" {
		display = Percentage
	}
	return &Metric{Name: name, Unit: unit, Scale: scale, Display: display}
}
