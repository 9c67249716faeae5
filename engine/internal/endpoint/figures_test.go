package endpoint

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/perfgate/perfgate/engine/internal/report"
)

const service = "http://127.0.0.1:40123"

var (
	search = Line{Method: "GET", Path: "/search?q=alpha"}
	order  = Line{Method: "POST", Path: "/order"}
)

// result is one request of line as vegeta records it, sent at offset into
// the window.
func result(line Line, offset, latency time.Duration, code uint16, errText string) vegeta.Result {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return vegeta.Result{Attack: "window", Method: line.Method, URL: service + line.Path, Code: code,
		Timestamp: start.Add(offset), Latency: latency, Error: errText}
}

// writeResults writes results in vegeta's binary encoding, as a run's
// window keeps them, to path.
func writeResults(t *testing.T, path string, results []vegeta.Result) {
	t.Helper()
	var b bytes.Buffer
	enc := vegeta.NewEncoder(&b)
	for i := range results {
		results[i].Seq = uint64(i)
		if err := enc.Encode(&results[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLines(t *testing.T) {
	got := Lines([]report.Request{
		{Method: "GET", Path: "/search?q=alpha"},
		{Method: "POST", Path: "/order", Body: `{"id":1}`},
		{Method: "POST", Path: "/order", Body: `{"id":2}`}, // same line, another body
		{Method: "GET", Path: "/search?q=alpha", Headers: map[string]string{"X": "y"}},
	})
	if len(got) != 2 || got[0] != search || got[1] != order {
		t.Errorf("Lines = %v, want [%v %v]", got, search, order)
	}
}

func TestPathOf(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"http://127.0.0.1:8080/search?q=alpha", "/search?q=alpha"},
		{"http://perfgate-svc.ns.svc:80/order", "/order"},
		{"http://[::1]:9/a/b?c=d&e=/f", "/a/b?c=d&e=/f"},
		{"http://127.0.0.1:8080", ""},
		{"/bare", "/bare"},
	} {
		if got := pathOf(tt.url); got != tt.want {
			t.Errorf("pathOf(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestRead(t *testing.T) {
	ms := time.Millisecond
	var results []vegeta.Result
	// 100 searches over one second, 1..100 ms, the last 4 failing.
	for i := range 100 {
		code, errText := uint16(200), ""
		if i >= 96 {
			code, errText = 0, "connection refused"
		}
		results = append(results, result(search, time.Duration(i)*10*ms, time.Duration(i+1)*ms, code, errText))
	}
	// 10 orders, a 302 counts as a success, a 500 does not.
	for i := range 10 {
		code := uint16(201)
		switch i {
		case 0:
			code = 302
		case 1:
			code = 500
		}
		results = append(results, result(order, time.Duration(i)*100*ms, 5*ms, code, ""))
	}
	// A URL no configured line has (another path, another method, a
	// hostile one) never becomes an endpoint.
	results = append(results,
		result(Line{Method: "GET", Path: "/order"}, 0, ms, 200, ""),
		result(Line{Method: "GET", Path: "/<script>alert(1)</script>"}, 0, ms, 200, ""))
	path := filepath.Join(t.TempDir(), "results.bin")
	writeResults(t, path, results)

	got, err := Read(path, []Line{search, order, {Method: "DELETE", Path: "/never"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Unmatched != 2 {
		t.Errorf("Unmatched = %d, want 2", got.Unmatched)
	}
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %v, want %v ± %v", name, got, want, tol)
		}
	}
	s, o, never := got.Lines[0], got.Lines[1], got.Lines[2]
	if s.Requests != 100 || o.Requests != 10 || never.Requests != 0 {
		t.Errorf("requests = %d, %d, %d; want 100, 10, 0", s.Requests, o.Requests, never.Requests)
	}
	near("search error rate", s.ErrorRate, 0.04, 1e-12)
	near("order error rate", o.ErrorRate, 0.1, 1e-12)
	// vegeta's quantile estimate (a t-digest) of 1..100 ms.
	near("search p50", s.LatencyP50Ms, 50.5, 1)
	near("search p90", s.LatencyP90Ms, 90.5, 1)
	near("search p99", s.LatencyP99Ms, 99.5, 1)
	near("order p99", o.LatencyP99Ms, 5, 1e-9)
	// 96 successes from 0 to 990 ms, the last answered at 1090 ms.
	near("search throughput", s.Throughput, 96/1.090, 1e-9)
	near("order throughput", o.Throughput, 9/0.905, 1e-9)

	// With the run's sending time known (a window sent in two halves, the
	// pause between them not counted), throughput is over it.
	got, err = Read(path, []Line{search, order}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	near("search throughput over the run's sending", got.Lines[0].Throughput, 96/2.0, 1e-9)
	near("order throughput over the run's sending", got.Lines[1].Throughput, 9/2.0, 1e-9)
}

func TestReadRefusesWhatIsNotVegetaResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.bin")
	if err := os.WriteFile(path, []byte("not gob at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, []Line{search}, 0); err == nil {
		t.Error("garbage read as results")
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.bin"), []Line{search}, 0); err == nil {
		t.Error("a missing file read as no results")
	}
}
