package results

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// benchName is the benchmark every line uses, so benchstat pairs the base
// and head files column by column.
const benchName = "BenchmarkService"

// WriteBench writes bench/<side>.txt in the Go benchmark format, one line
// per valid run, so `benchstat bench/base.txt bench/head.txt` works. The
// iteration count is the number of requests in the window.
func WriteBench(dir string, env report.Environment, runs []report.Run, side string) error {
	if err := os.MkdirAll(filepath.Join(dir, "bench"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	// The configuration lines must be identical in both files, or
	// benchstat puts base and head in separate tables.
	fmt.Fprintf(&b, "goos: linux\ngoarch: %s\ncpu: %s\npkg: perfgate\n", runtime.GOARCH, oneLine(env.CPUModel))
	fmt.Fprintf(&b, "limits: cpu=%dm memory=%d confinement=%s\n", env.Limits.CPUMillicores, env.Limits.MemoryBytes, strings.ReplaceAll(env.Confinement, " ", "-"))
	for _, r := range runs {
		if r.Side != side || !r.Valid {
			continue
		}
		b.WriteString(benchLine(r.Figures))
	}
	return os.WriteFile(filepath.Join(dir, "bench", side+".txt"), []byte(b.String()), 0o644)
}

func benchLine(f report.Figures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s \t%d\t%.0f cpu-ns/req", benchName, f.Requests, f.CPUMicrosPerRequest*1e3)
	// Each optional figure on its own: a report.json edited by hand (or
	// from an older perfgate) may carry some without the others.
	for _, opt := range []struct {
		v      *float64
		format string
	}{{f.AllocsPerRequest, "\t%.2f allocs/req"}, {f.BytesPerRequest, "\t%.1f B/req"}, {f.GCCyclesPerRequest, "\t%.6f gc/req"}} {
		if opt.v != nil {
			fmt.Fprintf(&b, opt.format, *opt.v)
		}
	}
	fmt.Fprintf(&b, "\t%.0f p50-ns\t%.0f p90-ns\t%.0f p99-ns\t%.0f max-ns\t%.2f req/s\t%.6f errors/req\n",
		f.LatencyP50Ms*1e6, f.LatencyP90Ms*1e6, f.LatencyP99Ms*1e6, f.LatencyMaxMs*1e6, f.Throughput, f.ErrorRate)
	return b.String()
}

// oneLine keeps a configuration value on its line of the bench file.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
