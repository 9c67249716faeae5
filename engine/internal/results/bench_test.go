package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// readBench parses a bench file the way benchstat does.
func readBench(t *testing.T, path string) []*benchfmt.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*benchfmt.Result
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			out = append(out, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", path, rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fileConfig is a result's configuration lines, as benchstat keys tables.
func fileConfig(r *benchfmt.Result) map[string]string {
	c := map[string]string{}
	for _, kv := range r.Config {
		if kv.File {
			c[kv.Key] = string(kv.Value)
		}
	}
	return c
}

func TestWriteBenchReadsBackWithBenchfmt(t *testing.T) {
	dir := t.TempDir()
	env := report.Environment{
		CPUModel: "Intel(R) Xeon(R)  CPU @ 2.20GHz\t", // odd spacing as /proc/cpuinfo may have
		TargetEnvironment: report.TargetEnvironment{
			Confinement: "cgroup v2",
			Limits:      report.CgroupLimits{CPUMillicores: 1000, MemoryBytes: 256 << 20},
		},
	}
	memstats := func(requests uint64, cpu float64) report.Figures {
		f := withMemStats(cpu, 25)
		f.Requests = requests
		f.LatencyP50Ms, f.LatencyP90Ms, f.LatencyP99Ms, f.LatencyMaxMs = 0.5, 0.9, 1.25, 7
		f.Throughput, f.ErrorRate = 499.5, 0.001
		return f
	}
	runs := []report.Run{
		{Side: "base", Valid: true, Figures: memstats(5000, 41.5)},
		{Side: "head", Valid: true, Figures: memstats(4990, 45)},
		{Side: "base", Valid: false, InvalidReasons: []string{"crashed"}, Figures: memstats(10, 999)},
		{Side: "head", Valid: true, Figures: memstats(5001, 46)},
		{Side: "base", Valid: true, Figures: memstats(5002, 40)},
		{Side: "head", Valid: true, Figures: report.Figures{Requests: 5003, CPUSource: "cgroup", CPUMicrosPerRequest: 44}}, // no MemStats
	}
	for _, side := range metric.Sides {
		if err := WriteBench(dir, env, runs, side); err != nil {
			t.Fatal(err)
		}
	}
	base := readBench(t, filepath.Join(dir, "bench", "base.txt"))
	head := readBench(t, filepath.Join(dir, "bench", "head.txt"))

	if len(base) != 2 || len(head) != 3 {
		t.Fatalf("%d base and %d head results, want one per valid run: 2 and 3", len(base), len(head))
	}
	want := map[string]string{
		"goos": "linux", "cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz", "pkg": "perfgate",
		"limits": "cpu=1000m memory=268435456 confinement=cgroup-v2",
	}
	for _, r := range append(base, head...) {
		c := fileConfig(r)
		for k, v := range want {
			if c[k] != v {
				t.Errorf("config %s: %q, want %q", k, c[k], v)
			}
		}
		if c["goarch"] == "" {
			t.Errorf("no goarch configuration line")
		}
		if len(c) != len(fileConfig(base[0])) {
			t.Errorf("configuration %v differs from base's %v: benchstat would not pair them", c, fileConfig(base[0]))
		}
		if string(r.Name) != "Service" {
			t.Errorf("benchmark name %q, want Service in both files so benchstat pairs them", r.Name)
		}
	}

	// Iterations are the window's requests, in the order of the runs.
	var iters []int
	for _, r := range base {
		iters = append(iters, r.Iters)
	}
	if !slices.Equal(iters, []int{5000, 5002}) {
		t.Errorf("base iterations %v, want the valid runs' requests [5000 5002]", iters)
	}

	wantValues := map[string]float64{
		"cpu-ns/req": 41500, "allocs/req": 25, "B/req": 2500, "gc/req": 0.0025,
		"p50-ns": 500000, "p90-ns": 900000, "p99-ns": 1250000, "max-ns": 7000000,
		"req/s": 499.5, "errors/req": 0.001,
	}
	got := map[string]float64{}
	for _, v := range base[0].Values {
		unit, value := v.Unit, v.Value
		if v.OrigUnit != "" { // benchfmt tidies ns to sec; the file has ns
			unit, value = v.OrigUnit, v.OrigValue
		}
		got[unit] = value
	}
	if len(got) != len(wantValues) {
		t.Errorf("units %v, want %v", keys(got), keys(wantValues))
	}
	for unit, w := range wantValues {
		if g, ok := got[unit]; !ok || !near(g, w) {
			t.Errorf("%s = %v (present %v), want %v", unit, g, ok, w)
		}
	}
	if last := head[2]; len(last.Values) != 7 {
		t.Errorf("a run without MemStats has %d values, want 7 without allocs, bytes and gc", len(last.Values))
	} else if _, ok := last.Value("allocs/req"); ok {
		t.Errorf("a run without MemStats reports allocs/req")
	}
}

func TestWriteBenchWithoutValidRuns(t *testing.T) {
	dir := t.TempDir()
	runs := []report.Run{{Side: "base", Valid: false}, {Side: "head", Valid: true, Figures: report.Figures{Requests: 1}}}
	if err := WriteBench(dir, report.Environment{}, runs, "base"); err != nil {
		t.Fatal(err)
	}
	if got := readBench(t, filepath.Join(dir, "bench", "base.txt")); len(got) != 0 {
		t.Errorf("%d results from a side without valid runs", len(got))
	}
}

func keys(m map[string]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestBenchLineWithPartialOptionalFigures(t *testing.T) {
	allocs := 90.0
	line := benchLine(report.Figures{Requests: 100, CPUMicrosPerRequest: 3, AllocsPerRequest: &allocs})
	if !strings.Contains(line, "90.00 allocs/req") || strings.Contains(line, "B/req") {
		t.Errorf("line %q", line)
	}
}
