package session

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/results"
)

// BenchmarkRecomputeLargeProfiles times `perfgate compare` (merging, per-
// function attribution, flame graphs, statistics, report.md and .html) on
// 2 sides × 10 runs of CPU profiles of about 10 MB each, and reports the
// peak live heap while it runs. Recorded results: docs/benchmarks.md.
//
//	go test -run '^$' -bench RecomputeLargeProfiles -benchtime 3x ./internal/session
func BenchmarkRecomputeLargeProfiles(b *testing.B) {
	out := b.TempDir()
	size := writeLargeResults(b, out, 10)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go samplePeakHeap(&peak, stop)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Recompute(RecomputeOptions{Out: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(size)/20/(1<<20), "MB/profile")
}

// samplePeakHeap records the largest live heap seen every 5 ms.
func samplePeakHeap(peak *atomic.Uint64, stop chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond):
		}
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
}

// writeLargeResults writes a results directory with runsPerSide valid runs
// per side, each with a synthetic CPU profile of deep, varied stacks over a
// large function set (what a big service's 30 s profile looks like).
func writeLargeResults(b *testing.B, out string, runsPerSide int) int64 {
	cfg := config.Default()
	cfg.Service.Package = "./cmd/server"
	cfg.Pairs = runsPerSide
	rep := &report.Report{Schema: report.Schema, Verdict: report.Pass, Config: cfg.Report(), Seed: 1}
	var total int64
	rng := rand.New(rand.NewPCG(1, 2))
	for pair := 1; pair <= runsPerSide; pair++ {
		for _, side := range []string{"base", "head"} {
			dir := filepath.Join(side, fmt.Sprintf("run-%02d", pair))
			if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
				b.Fatal(err)
			}
			p := syntheticCPUProfile(rng, side == "head")
			f, err := os.Create(filepath.Join(out, dir, "cpu.pb.gz"))
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Write(f); err != nil {
				b.Fatal(err)
			}
			info, _ := f.Stat()
			total += info.Size()
			f.Close()
			cpu := 300 + rng.Float64()*10
			if side == "head" {
				cpu *= 1.1
			}
			allocs := 90.0
			rep.Runs = append(rep.Runs, report.Run{
				Side: side, Pair: pair, Dir: dir, Valid: true, ProfileRequests: 10000,
				Profiles: []report.Profile{{Name: "cpu", File: "cpu.pb.gz"}},
				Figures:  report.Figures{Requests: 10000, CPUSource: "cgroup", CPUMicrosPerRequest: cpu, AllocsPerRequest: &allocs, LatencyP50Ms: 1, LatencyP90Ms: 2, LatencyP99Ms: 3},
			})
		}
	}
	if err := results.WriteReport(out, rep); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	return total
}

// syntheticCPUProfile draws its samples from a pool of call paths through a
// call graph (every function calls a few others), hot paths more often, as
// in a real service; the pool, not the sample count, bounds the distinct
// stacks.
func syntheticCPUProfile(rng *rand.Rand, head bool) *profile.Profile {
	const functions, paths, samples, maxDepth = 40000, 80000, 450000, 32
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10e6,
	}
	for i := 0; i < functions; i++ {
		fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("example.com/big/pkg%03d.(*Type%d).Method%d", i%500, i%97, i), Filename: fmt.Sprintf("pkg%03d/file%d.go", i%500, i%50)}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Address: uint64(0x400000 + 16*i), Line: []profile.Line{{Function: fn, Line: int64(10 + i%300)}}})
	}
	// The pool is the same for both sides (seeded apart from rng).
	pool := make([][]*profile.Location, paths)
	walk := rand.New(rand.NewPCG(7, 7))
	for i := range pool {
		f := walk.IntN(50)
		depth := 8 + walk.IntN(maxDepth-8)
		stack := make([]*profile.Location, depth)
		for d := depth - 1; d >= 0; d-- {
			stack[d] = p.Location[f]
			f = (f*7 + 13*(1+walk.IntN(6))) % functions
		}
		pool[i] = stack
	}
	zipf := rand.NewZipf(rng, 1.1, 1, paths-1)
	for s := 0; s < samples; s++ {
		n := int64(1 + rng.IntN(3))
		if head && s%10 == 0 {
			n *= 2
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: pool[zipf.Uint64()], Value: []int64{n, n * 10e6}})
	}
	return p
}
