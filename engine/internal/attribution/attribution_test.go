package attribution

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/simtest"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/svc/httpapi.(*Server).handleSearch.func3":        "example.com/svc/httpapi.(*Server).handleSearch.func*",
		"example.com/svc/httpapi.(*Server).handleSearch.func3.2":      "example.com/svc/httpapi.(*Server).handleSearch.func*",
		"net/http.(*Server).Serve.gowrap3":                            "net/http.(*Server).Serve.gowrap*",
		"example.com/svc/cache.Map[go.shape.int,go.shape.string].Get": "example.com/svc/cache.Map[...].Get",
		"slices.SortFunc[go.shape.[]int,go.shape.int]":                "slices.SortFunc[...]",
		"fmt.Sprintf":               "fmt.Sprintf",
		"example.com/svc.function1": "example.com/svc.function1",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// cpuProfile builds a CPU profile whose samples are (stack, count) with
// 10 ms per sample, the way the Go runtime writes them.
func cpuProfile(stacks map[string]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10e6,
	}
	id := uint64(1)
	fn := map[string]*profile.Function{}
	for leaf, n := range stacks {
		var locs []*profile.Location
		for _, name := range []string{leaf, "main.handler", "net/http.(*conn).serve"} {
			if fn[name] == nil {
				fn[name] = &profile.Function{ID: id, Name: name}
				p.Function = append(p.Function, fn[name])
				id++
			}
			loc := &profile.Location{ID: id, Line: []profile.Line{{Function: fn[name]}}}
			id++
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 10e6}})
	}
	return p
}

func write(t *testing.T, dir, name string, p *profile.Profile) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

// sides are profile rounds: each run's profile of kind in its own
// directory, as an experiment writes them.
type sides struct {
	dir  string
	runs []report.Run
}

func newSides(t *testing.T) *sides { return &sides{dir: t.TempDir()} }

// round adds one run of side with its requests and its profile of kind.
func (s *sides) round(t *testing.T, side, kind string, requests uint64, p *profile.Profile) {
	t.Helper()
	pair := len(s.runs)/2 + 1
	r := report.Run{Side: side, Pair: pair, Dir: fmt.Sprintf("%s-%d", side, len(s.runs)), Valid: true, ProfileRequests: requests,
		Profiles: []report.Profile{{Name: kind, File: kind + ".pb.gz"}}}
	if err := os.MkdirAll(filepath.Join(s.dir, r.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.dir, r.Dir), kind+".pb.gz", p)
	s.runs = append(s.runs, r)
}

// split divides each stack's samples over n rounds as evenly as whole
// samples allow.
func split(stacks map[string]int64, n int) []map[string]int64 {
	out := make([]map[string]int64, n)
	for i := range out {
		out[i] = map[string]int64{}
		for name, v := range stacks {
			out[i][name] = v / int64(n)
			if int64(i) < v%int64(n) {
				out[i][name]++
			}
		}
	}
	return out
}

func (s *sides) functions(t *testing.T) []report.Function {
	t.Helper()
	fs, warnings := Functions(s.dir, s.runs, OwnCode())
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	return fs
}

func flatRows(fs []report.Function) map[string]report.Function {
	flat := map[string]report.Function{}
	for _, f := range fs {
		if f.Kind == "flat" {
			flat[f.Name] = f
		}
	}
	return flat
}

func TestFunctionsPerRequestBeyondNoise(t *testing.T) {
	s := newSides(t)
	// Head served twice the requests: equal per-request costs show as
	// twice the samples and must not be reported.
	base := split(map[string]int64{"main.steady": 1000, "regexp.compile": 12, "main.removed": 402, "main.jitter": 102}, 3)
	head := split(map[string]int64{"main.steady": 2000, "regexp.compile": 3000, "main.added": 501, "main.jitter": 210}, 3)
	for i := range 3 {
		s.round(t, "base", "cpu", 1000, cpuProfile(base[i]))
		s.round(t, "head", "cpu", 2000, cpuProfile(head[i]))
	}
	// An invalid run is no evidence.
	s.round(t, "head", "cpu", 1e6, cpuProfile(map[string]int64{"main.steady": 1e6}))
	s.runs[len(s.runs)-1].Valid = false
	fs := s.functions(t)
	flat := flatRows(fs)
	if _, ok := flat["main.steady"]; ok {
		t.Error("main.steady costs the same per request and must not be reported")
	}
	if _, ok := flat["main.jitter"]; ok {
		t.Error("main.jitter's difference (102 vs 105 per 3000 requests) is within noise")
	}
	re := flat["regexp.compile"]
	// base: 12 samples × 10 ms / 3000 req = 40 µs/req; head: 3000 × 10 ms / 6000 = 5000 µs/req.
	if re.Status != "changed" || re.Base != 40 || re.Head != 5000 || re.Delta != 4960 || re.Unit != "µs/req" {
		t.Errorf("regexp.compile = %+v", re)
	}
	if f := flat["main.added"]; f.Status != "new" || f.Base != 0 {
		t.Errorf("main.added = %+v, want new", f)
	}
	if f := flat["main.removed"]; f.Status != "gone" || f.Head != 0 {
		t.Errorf("main.removed = %+v, want gone", f)
	}
	if fs[0].Name != "regexp.compile" {
		t.Errorf("largest delta first, got %s", fs[0].Name)
	}
	var cumHandler bool
	for _, f := range fs {
		cumHandler = cumHandler || (f.Kind == "cum" && f.Name == "main.handler")
	}
	if !cumHandler {
		t.Error("main.handler's cumulative cost grew with regexp.compile and must be reported")
	}
}

// TestJitteryFunctionNeedsMoreThanSamplingNoise: a function whose cost
// moves between processes far beyond its sampling noise (the garbage
// collector's, a timing-dependent path) differs between the sides by more
// than Poisson noise in an A/A gate; its rounds show that it does, and it
// is not reported. The same difference in a steady function is.
func TestJitteryFunctionNeedsMoreThanSamplingNoise(t *testing.T) {
	s := newSides(t)
	baseJitter, headJitter := []int64{300, 900, 400}, []int64{1200, 500, 1000}
	for i := range 3 {
		s.round(t, "base", "cpu", 1000, cpuProfile(map[string]int64{"main.jittery": baseJitter[i], "main.steady": 500}))
		s.round(t, "head", "cpu", 1000, cpuProfile(map[string]int64{"main.jittery": headJitter[i], "main.steady": 500 + 200}))
	}
	flat := flatRows(s.functions(t))
	if f, ok := flat["main.jittery"]; ok {
		t.Errorf("main.jittery (1600 vs 2700 samples, but 300 to 1200 a round) was reported: %+v", f)
	}
	if _, ok := flat["main.steady"]; !ok {
		t.Error("main.steady grew by 40% in every round and must be reported")
	}
}

// TestAANamesNoFunctionMostOfTheTime: in simulated A/A gates of 300
// functions with Poisson samples (3 profile rounds a side), noise puts a
// function in "Where it changed" in at most about 5% of gates.
func TestAANamesNoFunctionMostOfTheTime(t *testing.T) {
	simtest.Simulation(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const gates = 100
	named := 0
	for range gates {
		s := newSides(t)
		rates := make([]float64, 300)
		for i := range rates {
			rates[i] = math.Exp(rng.Float64() * 7) // 1 to 1,100 samples a round
		}
		for range 3 {
			for _, side := range []string{"base", "head"} {
				stacks := map[string]int64{}
				for i, rate := range rates {
					if n := poisson(rng, rate); n > 0 {
						stacks[fmt.Sprintf("main.f%d", i)] = n
					}
				}
				s.round(t, side, "cpu", 1000, cpuProfile(stacks))
			}
		}
		if len(flatRows(s.functions(t))) > 0 {
			named++
		}
	}
	t.Logf("%d of %d A/A gates named a function", named, gates)
	if named > 10 {
		t.Errorf("%d of %d A/A gates named a function; want about 5%%", named, gates)
	}
}

// poisson draws a Poisson count (normal approximation above 100).
func poisson(rng *rand.Rand, mean float64) int64 {
	if mean > 100 {
		return max(0, int64(math.Round(mean+math.Sqrt(mean)*rng.NormFloat64())))
	}
	l, k, p := math.Exp(-mean), int64(0), 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

func TestMissingProfilesAreSkippedQuietly(t *testing.T) {
	runs := []report.Run{
		{Side: "base", Pair: 1, Dir: "base-1", Valid: true, ProfileRequests: 1000, Profiles: []report.Profile{{Name: "cpu", File: "cpu.pb.gz"}}},
		{Side: "head", Pair: 1, Dir: "head-1", Valid: true, ProfileRequests: 1000},
	}
	fs, warnings := Functions(t.TempDir(), runs, OwnCode())
	if len(fs) != 0 || len(warnings) != 0 {
		t.Errorf("no profiles: %d functions, warnings %v", len(fs), warnings)
	}
}

func TestCorruptProfileIsAWarning(t *testing.T) {
	s := newSides(t)
	s.round(t, "base", "cpu", 1000, cpuProfile(map[string]int64{"main.a": 10}))
	s.round(t, "head", "cpu", 1000, cpuProfile(map[string]int64{"main.a": 10}))
	if err := os.WriteFile(filepath.Join(s.dir, s.runs[1].Dir, "cpu.pb.gz"), []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, warnings := Functions(s.dir, s.runs, OwnCode()); len(warnings) != 1 {
		t.Errorf("warnings = %v, want one for the corrupt head profile", warnings)
	}
}

func TestCaptureAndIdleWaitsAreExcluded(t *testing.T) {
	s := newSides(t)
	// The pprof handler's own cost changes between the sides (it does:
	// profiles differ in size) but must never be reported.
	for range 3 {
		s.round(t, "base", "cpu", 1000, cpuProfile(map[string]int64{"net/http/pprof.handler.ServeHTTP": 10, "main.work": 100}))
		s.round(t, "head", "cpu", 1000, cpuProfile(map[string]int64{"net/http/pprof.handler.ServeHTTP": 900, "main.work": 100}))
	}
	for _, f := range s.functions(t) {
		if strings.Contains(f.Name, "pprof") || f.Name == "main.handler" {
			t.Errorf("perfgate's own capture reported: %+v", f)
		}
	}
}

// heapProfile builds an end-of-window heap profile the way the Go runtime
// writes it: bytes still in use per allocation site, sampled every 512 KiB.
func heapProfile(inUse map[string]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}, Period: 512 << 10,
	}
	id := uint64(1)
	for leaf, bytes := range inUse {
		var locs []*profile.Location
		for _, name := range []string{leaf, "main.handler"} {
			fn := &profile.Function{ID: id, Name: name}
			loc := &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
			p.Function, p.Location = append(p.Function, fn), append(p.Location, loc)
			locs = append(locs, loc)
			id++
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{bytes / 64, 4 * bytes, bytes / 64, bytes}})
	}
	return p
}

// TestHeapInUsePerRun: the live heap at the end of the windows is compared
// per run (it is a snapshot, not a cost per request), so head serving more
// requests does not inflate it, and a site that keeps growing is reported.
func TestHeapInUsePerRun(t *testing.T) {
	s := newSides(t)
	// Head's main.keep holds 24 MiB more at the end of every run, and head
	// served more requests.
	for range 3 {
		s.round(t, "base", "heap", 4000, heapProfile(map[string]int64{"main.cache": 8 << 20, "main.keep": 1 << 20}))
		s.round(t, "head", "heap", 9000, heapProfile(map[string]int64{"main.cache": 8 << 20, "main.keep": 25 << 20}))
	}
	flat := map[string]report.Function{}
	for _, f := range s.functions(t) {
		if f.Profile == "heap" && f.Kind == "flat" {
			flat[f.Name] = f
		}
	}
	if _, ok := flat["main.cache"]; ok {
		t.Error("main.cache holds the same per run and must not be reported")
	}
	keep, ok := flat["main.keep"]
	if !ok || keep.Unit != "B" || keep.Base != 1<<20 || keep.Head != 25<<20 || keep.Delta != 24<<20 {
		t.Errorf("main.keep = %+v (reported %v), want 1 MiB → 25 MiB in use per run", keep, ok)
	}
}
