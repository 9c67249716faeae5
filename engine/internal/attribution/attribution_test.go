package attribution

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/report"
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

func runsWithRequests(base, head uint64) []report.Run {
	withCPU := []report.Profile{{Name: "cpu", File: "cpu.pb.gz"}}
	return []report.Run{
		{Side: "base", Pair: 1, Valid: true, ProfileRequests: base, Profiles: withCPU},
		{Side: "head", Pair: 1, Valid: true, ProfileRequests: head, Profiles: withCPU},
		// Invalid runs were not merged, so they are not denominators.
		{Side: "head", Pair: 2, Valid: false, ProfileRequests: 1e6, Profiles: withCPU},
	}
}

func TestFunctionsPerRequestBeyondNoise(t *testing.T) {
	dir := t.TempDir()
	// Head served twice the requests: equal per-request costs show as
	// twice the samples and must not be reported.
	write(t, dir, "base.cpu.pb.gz", cpuProfile(map[string]int64{"main.steady": 1000, "regexp.compile": 10, "main.removed": 400, "main.jitter": 100}))
	write(t, dir, "head.cpu.pb.gz", cpuProfile(map[string]int64{"main.steady": 2000, "regexp.compile": 3000, "main.added": 500, "main.jitter": 210}))
	fs, warnings := Functions(dir, runsWithRequests(1000, 2000))
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	flat := map[string]report.Function{}
	for _, f := range fs {
		if f.Kind == "flat" {
			flat[f.Name] = f
		}
	}
	if _, ok := flat["main.steady"]; ok {
		t.Error("main.steady costs the same per request and must not be reported")
	}
	if _, ok := flat["main.jitter"]; ok {
		t.Error("main.jitter's difference (100 vs 105 per 1000 requests) is within noise")
	}
	re := flat["regexp.compile"]
	// base: 10 samples × 10 ms / 1000 req = 100 µs/req; head: 3000 × 10 ms / 2000 = 15000 µs/req.
	if re.Status != "changed" || re.Base != 100 || re.Head != 15000 || re.Delta != 14900 || re.Unit != "µs/req" {
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

func TestMissingProfilesAreSkippedQuietly(t *testing.T) {
	fs, warnings := Functions(t.TempDir(), runsWithRequests(1000, 1000))
	if len(fs) != 0 || len(warnings) != 0 {
		t.Errorf("no profiles: %d functions, warnings %v", len(fs), warnings)
	}
}

func TestCorruptProfileIsAWarning(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "base.cpu.pb.gz", cpuProfile(map[string]int64{"main.a": 10}))
	if err := os.WriteFile(filepath.Join(dir, "head.cpu.pb.gz"), []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, warnings := Functions(dir, runsWithRequests(1000, 1000)); len(warnings) != 1 {
		t.Errorf("warnings = %v, want one for the corrupt head profile", warnings)
	}
}

func TestCaptureAndIdleWaitsAreExcluded(t *testing.T) {
	dir := t.TempDir()
	// The pprof handler's own cost changes between the sides (it does:
	// profiles differ in size) but must never be reported.
	write(t, dir, "base.cpu.pb.gz", cpuProfile(map[string]int64{"net/http/pprof.handler.ServeHTTP": 10, "main.work": 100}))
	write(t, dir, "head.cpu.pb.gz", cpuProfile(map[string]int64{"net/http/pprof.handler.ServeHTTP": 900, "main.work": 100}))
	fs, _ := Functions(dir, runsWithRequests(1000, 1000))
	for _, f := range fs {
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
	dir := t.TempDir()
	// Base: 3 runs merged; head: 3 runs merged, whose store.Keep holds
	// 24 MiB more per run.
	write(t, dir, "base.heap.pb.gz", heapProfile(map[string]int64{"main.cache": 3 * (8 << 20), "main.keep": 3 * (1 << 20)}))
	write(t, dir, "head.heap.pb.gz", heapProfile(map[string]int64{"main.cache": 3 * (8 << 20), "main.keep": 3 * (25 << 20)}))
	heap := []report.Profile{{Name: "heap", File: "heap.pb.gz"}}
	var runs []report.Run
	for pair := 1; pair <= 3; pair++ {
		runs = append(runs,
			report.Run{Side: "base", Pair: pair, Valid: true, ProfileRequests: 4000, Profiles: heap},
			report.Run{Side: "head", Pair: pair, Valid: true, ProfileRequests: 9000, Profiles: heap})
	}
	fs, warnings := Functions(dir, runs)
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	flat := map[string]report.Function{}
	for _, f := range fs {
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
