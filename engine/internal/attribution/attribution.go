// Package attribution says where a change of cost comes from: per function,
// the head-minus-base cost per request (per run for the snapshots taken at
// the end of each window: goroutines, live heap) from each side's
// profiles, keeping only differences beyond their noise.
package attribution

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// perProfile caps the functions kept per profile and kind (flat, cum).
const perProfile = 25

// measure is one quantity read from a profile kind.
type measure struct {
	profile   string
	valueType string
	unit      string
	// scale turns a value per request into the unit (ns → µs).
	scale float64
	// perRun makes it an average per run instead of per request
	// (goroutine counts are a snapshot, not a cost per request).
	perRun bool
	// samples are the raw samples behind each sample, which set the noise.
	samples rawSamples
}

var measures = []measure{
	{profile: "cpu", valueType: "cpu", unit: "µs/req", scale: 1e-3, samples: counted("samples")},
	{profile: "allocs", valueType: "alloc_space", unit: "B/req", scale: 1, samples: heapSampled("alloc_objects", "alloc_space")},
	{profile: "allocs", valueType: "alloc_objects", unit: "allocs/req", scale: 1, samples: heapSampled("alloc_objects", "alloc_space")},
	{profile: "mutex", valueType: "delay", unit: "µs/req", scale: 1e-3, samples: fractionSampled("contentions")},
	{profile: "block", valueType: "delay", unit: "µs/req", scale: 1e-3, samples: counted("contentions")},
	{profile: "goroutine", valueType: "goroutine", unit: "goroutines", scale: 1, perRun: true, samples: counted("goroutine")},
	// The heap profile taken at the end of each window: what is still in
	// use there, per run, by the site that allocated it. A leak shows as
	// head holding more at the site that keeps something per request.
	{profile: "heap", valueType: "inuse_space", unit: "B", scale: 1, perRun: true, samples: heapSampled("inuse_objects", "inuse_space")},
}

// Functions compares the sides' profiles per request (per run for the
// snapshots), function by function: each valid run's profile of a kind is
// one round of evidence, so a function's round-to-round spread, not only
// its sampling noise, decides whether its difference is shown (noise.go).
// Problems with one profile kind are returned as warnings; the other kinds
// are still attributed. code tells the service's own functions, named as
// the callers of costs that land elsewhere.
func Functions(dir string, runs []report.Run, code Code) ([]report.Function, []error) {
	var tallies []*tally
	var warnings []error
	for _, m := range measures {
		t, err := tallyOf(dir, runs, m, code)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				warnings = append(warnings, fmt.Errorf("%s profile: %w", m.profile, err))
			}
			continue
		}
		if t != nil {
			tallies = append(tallies, t)
		}
	}
	z := criticalZ(comparable(tallies))
	var out []report.Function
	for _, t := range tallies {
		out = append(out, t.compare(z)...)
	}
	return out, warnings
}

// comparable is how many functions could show a difference beyond noise
// at all (Tarone's rule): a function with n samples in all, every one on
// one side, is sqrt(n/φ) standard deviations from no change, so functions
// too rare for that to reach the critical z do not widen the correction.
// It is the smallest m for which at most m functions could reach
// criticalZ(m).
func comparable(tallies []*tally) int {
	var reach []float64
	for _, t := range tallies {
		for _, k := range t.keys() {
			c := t.counts(k)
			reach = append(reach, math.Sqrt((c.total(0)+c.total(1))/t.typical[k.kind]))
		}
	}
	// reachable(m) falls as m grows and m rises, so the smallest m with
	// reachable(m) <= m is found by bisection over the sorted reaches.
	sort.Float64s(reach)
	reachable := func(m int) int {
		z := criticalZ(m)
		return len(reach) - sort.Search(len(reach), func(i int) bool { return reach[i] > z })
	}
	return 1 + sort.Search(max(len(reach), 1), func(i int) bool { return reachable(i+1) <= i+1 })
}

// key names one row: a function's own cost (flat: at its site, via the
// runtime function that carried it out) or its cost with callees (cum).
type key struct{ kind, name, via string }

// tally is one measure's per-function costs over both sides' rounds.
type tally struct {
	m measure
	// exposure is each round's requests (1 per run for a snapshot).
	exposure  [2][]float64
	functions map[key]*function
	// typical is each kind's typical dispersion (noise.go).
	typical map[string]float64
}

// function is one row's evidence, per side: base's and head's binaries
// number their lines apart once a pull request edits the file.
type function struct {
	value [2]float64
	// raw are the raw samples per round of each side.
	raw [2]map[int]float64
	// src is where each side's binary defines the function.
	src [2]*source
	// lines and callers are raw samples per line of the function and per
	// caller of the service's own code (flat rows only).
	lines   [2]map[int64]float64
	callers [2]map[place]float64
}

// place is a line of a function.
type place struct {
	name string
	line int64
}

// tallyOf reads every valid run's profile of m's kind; nil when a side has
// none.
func tallyOf(dir string, runs []report.Run, m measure, code Code) (*tally, error) {
	t := &tally{m: m, functions: map[key]*function{}, typical: map[string]float64{}}
	for _, r := range runs {
		file := profileFile(r, m.profile)
		if !r.Valid || file == "" {
			continue
		}
		exposure := float64(r.ProfileRequests)
		if m.perRun {
			exposure = 1
		}
		if exposure == 0 {
			continue
		}
		side := sideIndex(r)
		p, err := capture.ReadProfile(filepath.Join(dir, r.Dir, file))
		if err != nil {
			return nil, err
		}
		if err := t.add(p, side, len(t.exposure[side]), code); err != nil {
			return nil, err
		}
		t.exposure[side] = append(t.exposure[side], exposure)
	}
	if len(t.exposure[0]) == 0 || len(t.exposure[1]) == 0 {
		return nil, nil
	}
	for _, kind := range []string{"flat", "cum"} {
		var all []counts
		for _, k := range t.keys() {
			if k.kind == kind {
				all = append(all, t.counts(k))
			}
		}
		t.typical[kind] = typicalDispersion(all)
	}
	return t, nil
}

func sideIndex(r report.Run) int {
	if metric.SideOf(r) == metric.Base {
		return 0
	}
	return 1
}

func profileFile(r report.Run, kind string) string {
	for _, p := range r.Profiles {
		if p.Name == kind {
			return p.File
		}
	}
	return ""
}

// add adds one round's profile to side's tally.
func (t *tally) add(p *profile.Profile, side, round int, code Code) error {
	vi := index(p, t.m.valueType)
	if vi < 0 {
		return fmt.Errorf("no %s sample type", t.m.valueType)
	}
	raw, err := t.m.samples(p)
	if err != nil {
		return err
	}
	cache := names{}
	for _, s := range p.Sample {
		if excluded(s, t.m.profile, cache) {
			continue
		}
		fs := stack(s, cache)
		if len(fs) == 0 {
			continue
		}
		v, n := float64(s.Value[vi]), raw(s)
		// One pass over the stack gives every frame's nearest own caller,
		// for the flat row's site and for each cum row.
		callers := code.callersAbove(fs)
		i, via := site(fs)
		at := fs[i]
		own := t.function(key{"flat", at.name, via})
		own.record(side, round, v, n, at.src)
		own.lines[side][at.line] += n
		if c := callers[i]; c != nil {
			own.callers[side][place{c.name, c.line}] += n
		}
		seen := map[string]bool{}
		for i, f := range fs {
			if !seen[f.name] {
				seen[f.name] = true
				cum := t.function(key{"cum", f.name, ""})
				cum.record(side, round, v, n, f.src)
				if c := callers[i]; c != nil {
					cum.callers[side][place{c.name, c.line}] += n
				}
			}
		}
	}
	return nil
}

func (t *tally) function(k key) *function {
	f := t.functions[k]
	if f == nil {
		f = &function{raw: [2]map[int]float64{{}, {}}, lines: [2]map[int64]float64{{}, {}}, callers: [2]map[place]float64{{}, {}}}
		t.functions[k] = f
	}
	return f
}

func (f *function) record(side, round int, value, raw float64, src source) {
	f.value[side] += value
	f.raw[side][round] += raw
	if f.src[side] == nil {
		f.src[side] = &src
	}
}

// described is the side whose binary a row describes: head's, unless the
// function is gone from it (links go to the head commit).
func (f *function) described() int {
	if f.src[1] != nil {
		return 1
	}
	return 0
}

// keys are the tally's rows in a fixed order.
func (t *tally) keys() []key {
	ks := make([]key, 0, len(t.functions))
	for k := range t.functions {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.kind != b.kind {
			return a.kind > b.kind // flat first
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.via < b.via
	})
	return ks
}

// counts are row k's raw samples per round, zero where a round had none.
func (t *tally) counts(k key) counts {
	f := t.functions[k]
	var c counts
	for side := range 2 {
		c.exposure[side] = t.exposure[side]
		c.raw[side] = make([]float64, len(t.exposure[side]))
		for round, n := range f.raw[side] {
			c.raw[side][round] = n
		}
	}
	return c
}

// compare keeps, per kind, the rows whose per-request difference is beyond
// noise at z, largest first.
func (t *tally) compare(z float64) []report.Function {
	m := t.m
	denom := [2]float64{sum(t.exposure[0]), sum(t.exposure[1])}
	byKind := map[string][]report.Function{}
	for _, k := range t.keys() {
		c := t.counts(k)
		if !beyondNoise(c, t.typical[k.kind], z) {
			continue
		}
		f := t.functions[k]
		row := report.Function{
			Profile: m.profile, Name: k.name, Via: k.via, Kind: k.kind, Unit: m.unit,
			Base: f.value[0] / denom[0] * m.scale, Head: f.value[1] / denom[1] * m.scale,
			BaseSamples: c.total(0), HeadSamples: c.total(1), Status: "changed",
		}
		side := f.described()
		row.File, row.Line = f.src[side].file, f.src[side].line
		row.Delta = row.Head - row.Base
		if k.kind == "flat" {
			row.CallLine = heaviest(f.lines[side])
		}
		caller := heaviestPlace(f.callers[side])
		row.Caller, row.CallerLine = caller.name, caller.line
		switch {
		case f.value[0] == 0:
			row.Status = "new"
		case f.value[1] == 0:
			row.Status = "gone"
		}
		byKind[k.kind] = append(byKind[k.kind], row)
	}
	var out []report.Function
	for _, kind := range []string{"flat", "cum"} {
		fs := byKind[kind]
		sort.SliceStable(fs, func(i, j int) bool { return math.Abs(fs[i].Delta) > math.Abs(fs[j].Delta) })
		out = append(out, fs[:min(len(fs), perProfile)]...)
	}
	return out
}

// heaviest is the line with the most samples (the first on a tie).
func heaviest(lines map[int64]float64) int64 {
	best, most := int64(0), -1.0
	for line, n := range lines {
		if n > most || (n == most && line < best) {
			best, most = line, n
		}
	}
	return best
}

// heaviestPlace is the place with the most samples (the first on a tie).
func heaviestPlace(counts map[place]float64) place {
	var best place
	most := -1.0
	for p, n := range counts {
		if n > most || (n == most && (p.name < best.name || p.name == best.name && p.line < best.line)) {
			best, most = p, n
		}
	}
	return best
}
