package results

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// benchName is the benchmark every line uses, so benchstat pairs the base
// and head files column by column.
const benchName = "BenchmarkService"

// WriteBench writes bench/<side>.txt in the Go benchmark format, one line
// per valid run, so `benchstat bench/base.txt bench/head.txt` works. The
// iteration count is the number of requests in the window.
func WriteBench(dir string, env report.Environment, runs []report.Run, side metric.Side) error {
	if err := os.MkdirAll(filepath.Join(dir, "bench"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	// The configuration lines must be identical in both files, or
	// benchstat puts base and head in separate tables.
	fmt.Fprintf(&b, "goos: linux\ngoarch: %s\ncpu: %s\npkg: perfgate\n", runtime.GOARCH, oneLine(env.CPUModel))
	fmt.Fprintf(&b, "limits: cpu=%dm memory=%d confinement=%s\n", env.Limits.CPUMillicores, env.Limits.MemoryBytes, strings.ReplaceAll(env.Confinement, " ", "-"))
	for _, r := range runs {
		if metric.SideOf(r) != side || !r.Compared() {
			continue
		}
		b.WriteString(benchLine(r.Figures))
	}
	return os.WriteFile(filepath.Join(dir, "bench", string(side)+".txt"), []byte(b.String()), 0o644)
}

// benchLine is one run: every catalog metric with a benchstat unit that the
// run measured (a report.json edited by hand, or from an older perfgate,
// may carry some optional figures without the others).
func benchLine(f report.Figures) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s \t%d", benchName, f.Requests)
	for _, m := range metric.Catalog {
		if m.Bench == nil {
			continue
		}
		if v, ok := m.Value(f); ok {
			b.WriteString("\t" + m.Bench.Line(v))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// oneLine keeps a configuration value on its line of the bench file.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
