// Package attribution says where a change of cost comes from: per function,
// the head-minus-base cost per request (per run for the snapshots taken at
// the end of each window: goroutines, live heap) from the per-side merged
// profiles, keeping only differences beyond sampling noise.
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

// noiseSigmas is how many standard deviations of sampling noise a delta
// must exceed: |Δ| > 3·√(base+head samples) (docs/report-schema.md,
// "Function").
const noiseSigmas = 3

// perProfile caps the functions kept per profile and kind (flat, cum).
const perProfile = 25

// measure is one quantity read from a profile kind.
type measure struct {
	profile string
	// valueType and countType are the sample types of the value and of the
	// sample count that sets the noise.
	valueType, countType string
	unit                 string
	// scale turns a value per request into the unit (ns → µs).
	scale float64
	// perRun makes it an average per run instead of per request
	// (goroutine counts are a snapshot, not a cost per request).
	perRun bool
	// countFromValue estimates raw samples from the value when the profile
	// holds only scaled estimates (heap sampling: one per 512 KiB).
	countFromValue float64
}

var measures = []measure{
	{profile: "cpu", valueType: "cpu", countType: "samples", unit: "µs/req", scale: 1e-3},
	{profile: "allocs", valueType: "alloc_space", countType: "alloc_space", unit: "B/req", scale: 1, countFromValue: 512 << 10},
	{profile: "allocs", valueType: "alloc_objects", countType: "alloc_space", unit: "allocs/req", scale: 1, countFromValue: 512 << 10},
	{profile: "mutex", valueType: "delay", countType: "contentions", unit: "µs/req", scale: 1e-3},
	{profile: "block", valueType: "delay", countType: "contentions", unit: "µs/req", scale: 1e-3},
	{profile: "goroutine", valueType: "goroutine", countType: "goroutine", unit: "goroutines", scale: 1, perRun: true},
	// The heap profile taken at the end of each window: what is still in
	// use there, per run, by the site that allocated it. A leak shows as
	// head holding more at the site that keeps something per request.
	{profile: "heap", valueType: "inuse_space", countType: "inuse_space", unit: "B", scale: 1, perRun: true, countFromValue: 512 << 10},
}

// Functions compares the merged profiles of dir (base.<kind>.pb.gz,
// head.<kind>.pb.gz) per request. Runs give the denominators: the requests
// sent while each valid run's profiles ran. Problems with one profile kind
// are returned as warnings; the other kinds are still attributed.
func Functions(dir string, runs []report.Run) ([]report.Function, []error) {
	var out []report.Function
	var warnings []error
	for _, m := range measures {
		base, errB := load(dir, metric.Base, m.profile)
		head, errH := load(dir, metric.Head, m.profile)
		if errB != nil || errH != nil {
			if err := errors.Join(errB, errH); !errors.Is(err, os.ErrNotExist) {
				warnings = append(warnings, err)
			}
			continue
		}
		denomBase, denomHead := denominators(runs, m)
		if denomBase == 0 || denomHead == 0 {
			continue
		}
		b, err := aggregate(base, m)
		if err == nil {
			var h costs
			if h, err = aggregate(head, m); err == nil {
				out = append(out, compare(m, b, h, denomBase, denomHead)...)
			}
		}
		if err != nil {
			warnings = append(warnings, fmt.Errorf("%s profile: %w", m.profile, err))
		}
	}
	return out, warnings
}

func load(dir string, side metric.Side, kind string) (*profile.Profile, error) {
	return capture.ReadProfile(filepath.Join(dir, string(side)+"."+kind+".pb.gz"))
}

// denominators are the requests (or runs) behind each side's merged
// profile of m's kind: only valid runs with that profile were merged.
func denominators(runs []report.Run, m measure) (base, head float64) {
	for _, r := range runs {
		if !r.Valid || !hasProfile(r, m.profile) {
			continue
		}
		n := float64(r.ProfileRequests)
		if m.perRun {
			n = 1
		}
		if metric.SideOf(r) == metric.Base {
			base += n
		} else {
			head += n
		}
	}
	return base, head
}

func hasProfile(r report.Run, kind string) bool {
	for _, p := range r.Profiles {
		if p.Name == kind && p.File != "" {
			return true
		}
	}
	return false
}

// costs are per-function totals of a profile: value and raw sample count,
// flat (the function is the leaf) and cum (anywhere on the stack).
type costs struct {
	flat, cum, flatN, cumN map[string]float64
	// source is where each function is defined, for links to it.
	source map[string]source
}

// source is a function's file (as the binary recorded it: with
// -trimpath, its import path) and first line.
type source struct {
	file string
	line int64
}

func aggregate(p *profile.Profile, m measure) (costs, error) {
	vi, ci := index(p, m.valueType), index(p, m.countType)
	if vi < 0 || ci < 0 {
		return costs{}, fmt.Errorf("no %s/%s sample types", m.valueType, m.countType)
	}
	c := costs{flat: map[string]float64{}, cum: map[string]float64{}, flatN: map[string]float64{}, cumN: map[string]float64{}, source: map[string]source{}}
	cache := names{}
	for _, s := range p.Sample {
		if excluded(s, m.profile, cache) {
			continue
		}
		v, n := float64(s.Value[vi]), float64(s.Value[ci])
		if m.countFromValue > 0 {
			n = n / m.countFromValue
		}
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for j, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := cache.of(line.Function)
				if _, ok := c.source[name]; !ok {
					c.source[name] = source{line.Function.Filename, line.Function.StartLine}
				}
				if li == 0 && j == 0 {
					c.flat[name] += v
					c.flatN[name] += n
				}
				if !seen[name] {
					seen[name] = true
					c.cum[name] += v
					c.cumN[name] += n
				}
			}
		}
	}
	return c, nil
}

func index(p *profile.Profile, sampleType string) int {
	for i, st := range p.SampleType {
		if st.Type == sampleType {
			return i
		}
	}
	return -1
}

// compare keeps, per kind, the functions whose per-request difference is
// beyond noise, largest first. The noise test scales head's sample count to
// base's denominator: Δ = h·(Db/Dh) − b, σ = √(b + h·(Db/Dh)²).
func compare(m measure, b, h costs, denomBase, denomHead float64) []report.Function {
	var out []report.Function
	for _, kind := range []struct {
		name           string
		bv, hv, bn, hn map[string]float64
	}{{"flat", b.flat, h.flat, b.flatN, h.flatN}, {"cum", b.cum, h.cum, b.cumN, h.cumN}} {
		var fs []report.Function
		ratio := denomBase / denomHead
		for _, name := range union(kind.bv, kind.hv) {
			bn, hn := kind.bn[name], kind.hn[name]
			if math.Abs(hn*ratio-bn) <= noiseSigmas*math.Sqrt(bn+hn*ratio*ratio) {
				continue
			}
			f := report.Function{
				Profile: m.profile, Name: name, Kind: kind.name, Unit: m.unit,
				Base: kind.bv[name] / denomBase * m.scale, Head: kind.hv[name] / denomHead * m.scale,
				BaseSamples: bn, HeadSamples: hn, Status: "changed",
			}
			f.Delta = f.Head - f.Base
			// Where the head defines it: links go to the head commit.
			if src, ok := h.source[name]; ok {
				f.File, f.Line = src.file, src.line
			} else if src, ok := b.source[name]; ok {
				f.File, f.Line = src.file, src.line
			}
			switch {
			case kind.bv[name] == 0:
				f.Status = "new"
			case kind.hv[name] == 0:
				f.Status = "gone"
			}
			fs = append(fs, f)
		}
		sort.Slice(fs, func(i, j int) bool {
			if a, b := math.Abs(fs[i].Delta), math.Abs(fs[j].Delta); a != b {
				return a > b
			}
			return fs[i].Name < fs[j].Name
		})
		if len(fs) > perProfile {
			fs = fs[:perProfile]
		}
		out = append(out, fs...)
	}
	return out
}

func union(a, b map[string]float64) []string {
	seen := map[string]bool{}
	var names []string
	for _, m := range []map[string]float64{a, b} {
		for name := range m {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}
