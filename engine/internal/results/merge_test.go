package results

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/report"
)

var sink [][]byte

// writeProfile writes this process's own profile of kind (allocs,
// goroutine, ...) where a run keeps it, after allocating so that two
// profiles differ.
func writeProfile(t *testing.T, path, kind string) {
	t.Helper()
	for range 100 {
		sink = append(sink, make([]byte, 4096))
	}
	sink = nil
	runtime.GC() // the allocs profile shows allocations as of the last GC
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup(kind).WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
}

func parseFile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	p, err := capture.ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// total sums a sample type over a profile.
func total(t *testing.T, p *profile.Profile, sampleType string) int64 {
	t.Helper()
	i := slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == sampleType })
	if i < 0 {
		t.Fatalf("no %s samples in a profile of %v", sampleType, p.SampleType)
	}
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

func TestMergeProfiles(t *testing.T) {
	dir := t.TempDir()
	profiles := func(names ...string) []report.Profile {
		var rs []report.Profile
		for _, n := range names {
			rs = append(rs, report.Profile{Name: n, File: n + ".pb.gz"})
		}
		return rs
	}
	runs := []report.Run{
		{Side: "base", Pair: 1, Dir: "base/run-01", Valid: true, Profiles: profiles("allocs", "goroutine")},
		{Side: "head", Pair: 1, Dir: "head/run-01", Valid: true, Profiles: profiles("allocs")},
		// An invalid run's file is not even read: it is not a profile.
		{Side: "base", Pair: 2, Dir: "base/run-02", Valid: false, Profiles: profiles("allocs")},
		// A profile that failed to download has no file.
		{Side: "base", Pair: 3, Dir: "base/run-03", Valid: true, Profiles: append(profiles("allocs"), report.Profile{Name: "cpu", Error: "GET /profile: 500"})},
	}
	for _, p := range []string{"base/run-01/allocs", "base/run-01/goroutine", "head/run-01/allocs", "base/run-03/allocs"} {
		writeProfile(t, filepath.Join(dir, p+".pb.gz"), filepath.Base(p))
	}
	if err := os.MkdirAll(filepath.Join(dir, "base/run-02"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "base/run-02/allocs.pb.gz"), []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}

	written, err := MergeProfiles(dir, runs, "base")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"base.allocs.pb.gz", "base.goroutine.pb.gz"}; !slices.Equal(written, want) {
		t.Fatalf("wrote %v, want %v", written, want)
	}
	merged := parseFile(t, filepath.Join(dir, "base.allocs.pb.gz"))
	if merged.DefaultSampleType != "alloc_space" {
		t.Errorf("DefaultSampleType %q, want alloc_space so pprof shows the window's allocations first", merged.DefaultSampleType)
	}
	run1 := parseFile(t, filepath.Join(dir, "base/run-01/allocs.pb.gz"))
	run3 := parseFile(t, filepath.Join(dir, "base/run-03/allocs.pb.gz"))
	for _, st := range []string{"alloc_objects", "alloc_space"} {
		if got, want := total(t, merged, st), total(t, run1, st)+total(t, run3, st); got != want {
			t.Errorf("merged %s = %d, want the valid runs' sum %d", st, got, want)
		}
	}
	goroutines := parseFile(t, filepath.Join(dir, "base.goroutine.pb.gz"))
	if got, want := total(t, goroutines, "goroutine"), total(t, parseFile(t, filepath.Join(dir, "base/run-01/goroutine.pb.gz")), "goroutine"); got != want {
		t.Errorf("merged goroutines %d, want the one run's %d", got, want)
	}

	written, err = MergeProfiles(dir, runs, "head")
	if err != nil || !slices.Equal(written, []string{"head.allocs.pb.gz"}) {
		t.Fatalf("head: wrote %v, %v", written, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "head.goroutine.pb.gz")); !os.IsNotExist(err) {
		t.Errorf("head.goroutine.pb.gz written without a head goroutine profile")
	}
}

func TestMergeProfilesErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // run file -> kind of real profile, or "" for garbage
		want  string
	}{
		{"missing file", map[string]string{"base/run-01/allocs.pb.gz": "allocs"}, "no such file"},
		{"corrupt file", map[string]string{"base/run-01/allocs.pb.gz": "allocs", "base/run-02/allocs.pb.gz": ""}, "parse "},
		{"different kinds under one name", map[string]string{"base/run-01/allocs.pb.gz": "allocs", "base/run-02/allocs.pb.gz": "goroutine"}, "merge base allocs profiles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for path, kind := range tt.files {
				if kind != "" {
					writeProfile(t, filepath.Join(dir, path), kind)
					continue
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, path), []byte("<html>"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			runs := []report.Run{
				{Side: "base", Dir: "base/run-01", Valid: true, Profiles: []report.Profile{{Name: "allocs", File: "allocs.pb.gz"}}},
				{Side: "base", Dir: "base/run-02", Valid: true, Profiles: []report.Profile{{Name: "allocs", File: "allocs.pb.gz"}}},
			}
			if _, err := MergeProfiles(dir, runs, "base"); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "base.allocs.pb.gz")); !os.IsNotExist(err) {
				t.Errorf("a failed merge left base.allocs.pb.gz")
			}
		})
	}
}
