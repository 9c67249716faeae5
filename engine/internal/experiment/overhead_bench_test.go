package experiment

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/local"
)

// BenchmarkRunOverhead measures the engine's own wall time per run, outside
// the warm-up and the window: process start and readiness, counter and
// profile capture, stop and cgroup removal. Target: under 1 s per run.
// Recorded results: docs/benchmarks.md.
//
//	go test -run '^$' -bench RunOverhead -benchtime 3x ./internal/experiment
func BenchmarkRunOverhead(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "service")
	bin := filepath.Join(b.TempDir(), "service")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/server")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build example service: %v\n%s", err, out)
	}
	cfg, err := config.Parse("bench.yml", []byte(`
service: {package: ./cmd/server, args: ["-addr", "{addr}"]}
load: {rate: 300, warmup: 1s, duration: 1s, requests: ["GET /search?q=alpha", "GET /report"]}
validity: {min_cpu_samples: 0}
pairs: 1
`))
	if err != nil {
		b.Fatal(err)
	}
	tg := local.New(cgroup.Limits{CPUMillicores: int64(cfg.Resources.CPU), MemoryBytes: int64(cfg.Resources.Memory)}, "")
	env, err := tg.Prepare(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	var runs []report.Run
	for i := 0; i < b.N; i++ {
		got, err := Run(context.Background(), Options{
			Config: cfg, Target: tg, Binaries: map[string]string{Base: bin, Head: bin},
			OutDir: b.TempDir(), Seed: uint64(i), GeneratorCPUs: max(1, len(env.GeneratorCPUs)),
			Progress: io.Discard, Record: func(report.Run) error { return nil },
		})
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, got...)
	}
	var overhead, ready, capture, stop float64
	for _, r := range runs {
		overhead += r.Timing.OverheadMs
		ready += r.Timing.StartToReadyMs
		capture += r.Timing.CaptureMs
		stop += r.Timing.StopMs
	}
	n := float64(len(runs))
	b.ReportMetric(overhead/n, "overhead-ms/run")
	b.ReportMetric(ready/n, "start-to-ready-ms/run")
	b.ReportMetric(capture/n, "capture-ms/run")
	b.ReportMetric(stop/n, "stop-ms/run")
}
