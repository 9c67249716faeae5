package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkLoadFidelity measures how closely the generator holds the
// requested rate, and what it costs, against the example service's cheap
// /healthz in a separate process (so the generator's CPU is its own). With
// two or more CPUs the service and the generator are pinned apart, as in a
// gate. Recorded results: docs/benchmarks.md.
//
//	go test -run '^$' -bench LoadFidelity -benchtime 1x ./internal/load
func BenchmarkLoadFidelity(b *testing.B) {
	baseURL := startExampleService(b)
	for _, rate := range []float64{500, 2000, 5000} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g := New(baseURL, rate, 2*time.Second, []Request{{Method: "GET", Path: "/healthz"}})
				if _, err := g.Attack(context.Background(), Attack{Name: "warmup", Duration: time.Second}); err != nil {
					b.Fatal(err)
				}
				s, err := g.Attack(context.Background(), Attack{Name: "window", Duration: 5 * time.Second})
				g.Close()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(s.AchievedRate/rate, "achieved/target")
				b.ReportMetric(s.Throughput, "ok-req/s")
				b.ReportMetric(float64(s.GeneratorCPUNanos)/float64(s.GeneratorWallNanos), "generator-cores")
				b.ReportMetric(float64(s.GeneratorCPUNanos)/float64(s.Requests)/1e3, "generator-µs/req")
				b.ReportMetric(float64(s.PacerLagP99)/1e6, "pacer-lag-p99-ms")
				b.ReportMetric(s.ErrorRate, "errors")
			}
		})
	}
}

// startExampleService builds and starts examples/service on a free port,
// pinned to the last CPU while this process keeps the others.
func startExampleService(b *testing.B) string {
	b.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "service")
	bin := filepath.Join(b.TempDir(), "service")
	build := exec.Command("go", "build", "-o", bin, "./cmd/server")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build example service: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-addr", addr)
	if n := runtime.NumCPU(); n >= 2 {
		cmd = exec.Command("taskset", "-c", strconv.Itoa(n-1), bin, "-addr", addr)
		var self unix.CPUSet
		for c := 0; c < n-1; c++ {
			self.Set(c)
		}
		_ = unix.SchedSetaffinity(0, &self)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); _ = cmd.Wait() }) // it dies of the kill
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return "http://" + addr
		}
	}
	b.Fatal("example service did not become ready")
	return ""
}
