package httpapi

import (
	"net/http"
	"testing"
)

// The benchmarks measure one request per endpoint through the handler,
// without the HTTP server around it, so ns/op and allocs/op show the
// service's own cost. POST /order still includes its real HTTP call to the
// inventory endpoint. Compare runs with benchstat.

func BenchmarkSearch(b *testing.B) {
	benchmarkEndpoint(b, http.MethodGet, "/search?q=alpha", "")
}

// BenchmarkSearchParallel issues searches from GOMAXPROCS goroutines at
// once, which is what exposes lock contention on the search path.
func BenchmarkSearchParallel(b *testing.B) {
	env := newTestEnv(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if rec := env.do(http.MethodGet, "/search?q=alpha", ""); rec.Code != http.StatusOK {
				b.Errorf("status = %d; body %s", rec.Code, rec.Body)
				return
			}
		}
	})
}

func BenchmarkOrder(b *testing.B) {
	benchmarkEndpoint(b, http.MethodPost, "/order", `{"id":1,"qty":2}`)
}

func BenchmarkReport(b *testing.B) {
	benchmarkEndpoint(b, http.MethodGet, "/report", "")
}

func benchmarkEndpoint(b *testing.B, method, target, body string) {
	env := newTestEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		if rec := env.do(method, target, body); rec.Code != http.StatusOK {
			b.Fatalf("status = %d; body %s", rec.Code, rec.Body)
		}
	}
}
