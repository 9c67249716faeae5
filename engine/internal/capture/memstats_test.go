package capture

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pprofServer serves this test process's own net/http/pprof handlers
// under /debug/pprof/, the way a service mounts them on its own mux. The
// texts and profiles the tests read are therefore real runtime output of
// the Go version under test, never a fixture that drifts from it.
func pprofServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// heapDebug1 is the real /debug/pprof/heap?debug=1 text of this process.
func heapDebug1(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, err := http.Get(srv.URL + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("heap?debug=1: %s", resp.Status)
	}
	return string(body)
}

// memStatLine finds "# name = value" in a debug=1 text, to check the
// parser against the text itself rather than against itself.
func memStatLine(t *testing.T, text, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^# ` + name + ` = (.*)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the heap text has no %q line", name)
	}
	return m[1]
}

// sink keeps test allocations on the heap.
var sink [][]byte

func TestParseMemStatsOfRealHeapProfile(t *testing.T) {
	srv := pprofServer(t)
	before, err := parseMemStats(strings.NewReader(heapDebug1(t, srv)))
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 1000, 1024
	for range n {
		sink = append(sink, make([]byte, size))
	}
	sink = nil
	runtime.GC()
	text := heapDebug1(t, srv)
	after, err := parseMemStats(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}

	for name, got := range map[string]uint64{
		"TotalAlloc": after.TotalAlloc, "Mallocs": after.Mallocs, "Frees": after.Frees,
		"HeapAlloc": after.HeapAlloc, "HeapInuse": after.HeapInuse, "Sys": after.Sys, "NumGC": after.NumGC,
	} {
		if want := memStatLine(t, text, name); want != uintText(got) {
			t.Errorf("%s = %d, the text says %s", name, got, want)
		}
	}
	if len(after.PauseNs) != 256 {
		t.Errorf("PauseNs has %d entries, want the runtime's 256", len(after.PauseNs))
	}
	if want := memStatLine(t, text, "PauseNs"); "["+joinUints(after.PauseNs)+"]" != want {
		t.Errorf("PauseNs = %v, the text says %s", after.PauseNs, want)
	}

	if grew := after.TotalAlloc - before.TotalAlloc; grew < n*size {
		t.Errorf("TotalAlloc grew by %d after allocating %d bytes", grew, n*size)
	}
	if grew := after.Mallocs - before.Mallocs; grew < n {
		t.Errorf("Mallocs grew by %d after %d allocations", grew, n)
	}
	if after.NumGC <= before.NumGC {
		t.Errorf("NumGC went from %d to %d across runtime.GC()", before.NumGC, after.NumGC)
	}
}

// TestParseMemStatsErrors edits the real text into the broken forms a
// service could serve.
func TestParseMemStatsErrors(t *testing.T) {
	real := heapDebug1(t, pprofServer(t))
	section := strings.Index(real, "\n# runtime.MemStats\n")
	if section < 0 {
		t.Fatal("the real heap text has no runtime.MemStats section")
	}
	tests := []struct {
		name string
		text string
		want string
	}{
		{"no MemStats section", real[:section+1], "has no runtime.MemStats section with TotalAlloc, Mallocs and NumGC"},
		{"empty", "", "has no runtime.MemStats section"},
		{"binary profile", "\x1f\x8b\x08\x00binary", "has no runtime.MemStats section"},
		{"NumGC missing", regexp.MustCompile(`(?m)^# NumGC = .*\n`).ReplaceAllString(real, ""), "has no runtime.MemStats section"},
		{"NumGC not a number", regexp.MustCompile(`(?m)^# NumGC = .*$`).ReplaceAllString(real, "# NumGC = many"), `MemStats NumGC = "many"`},
		{"TotalAlloc negative", regexp.MustCompile(`(?m)^# TotalAlloc = .*$`).ReplaceAllString(real, "# TotalAlloc = -1"), `MemStats TotalAlloc = "-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseMemStats(strings.NewReader(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseMemStatsOptionalCounters(t *testing.T) {
	// Only the required counters: the others stay zero, PauseNs nil.
	m, err := parseMemStats(strings.NewReader("heap profile: 0: 0 [0: 0] @ heap/1048576\n\n# runtime.MemStats\n# TotalAlloc = 10\n# Mallocs = 2\n# NumGC = 1\n# Stack = 1 / 2\n# PauseNs = [1 x 3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := MemStats{TotalAlloc: 10, Mallocs: 2, NumGC: 1}
	if m.TotalAlloc != want.TotalAlloc || m.Mallocs != want.Mallocs || m.NumGC != want.NumGC || m.Frees != 0 || m.Sys != 0 {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if m.PauseNs != nil {
		t.Errorf("a malformed PauseNs array parsed as %v, want nil (PauseDuring then reports not ok)", m.PauseNs)
	}
}

// ring builds a PauseNs buffer as the runtime fills it: pause of GC n
// (1-based) at index (n+255)%256.
func ring(pauses map[uint64]uint64) []uint64 {
	r := make([]uint64, 256)
	for gc, ns := range pauses {
		r[(gc+255)%256] = ns
	}
	return r
}

func TestPauseDuring(t *testing.T) {
	tests := []struct {
		name       string
		start, end MemStats
		want       uint64
		ok         bool
	}{
		{"no GC", MemStats{NumGC: 7}, MemStats{NumGC: 7, PauseNs: ring(map[uint64]uint64{7: 1000})}, 0, true},
		{"two GCs", MemStats{NumGC: 7}, MemStats{NumGC: 9, PauseNs: ring(map[uint64]uint64{7: 1000, 8: 20, 9: 300})}, 320, true},
		{"first GC of the process", MemStats{NumGC: 0}, MemStats{NumGC: 1, PauseNs: ring(map[uint64]uint64{1: 5})}, 5, true},
		{"wraps around index 255", MemStats{NumGC: 254}, MemStats{NumGC: 258, PauseNs: ring(map[uint64]uint64{254: 1e6, 255: 1, 256: 2, 257: 4, 258: 8})}, 15, true},
		{"exactly 256 GCs", MemStats{NumGC: 100}, MemStats{NumGC: 356, PauseNs: ones(256)}, 256, true},
		{"more than 256 GCs", MemStats{NumGC: 100}, MemStats{NumGC: 357, PauseNs: ones(256)}, 0, false},
		{"NumGC went backwards (another process)", MemStats{NumGC: 50}, MemStats{NumGC: 3, PauseNs: ones(256)}, 0, false},
		{"no PauseNs in the text", MemStats{NumGC: 1}, MemStats{NumGC: 2}, 0, false},
		// An untrusted service can send any numbers. Counting up from
		// start.NumGC+1 to an end.NumGC of MaxUint64 never ended (the
		// counter wraps to 0); a ring longer than 256 made the loop as
		// long as the ring; pauses could wrap the sum around.
		{"NumGC at the top of uint64", MemStats{NumGC: math.MaxUint64 - 2}, MemStats{NumGC: math.MaxUint64, PauseNs: ones(256)}, 2, true},
		{"NumGC at the top of uint64, no GC", MemStats{NumGC: math.MaxUint64}, MemStats{NumGC: math.MaxUint64, PauseNs: ones(256)}, 0, true},
		{"a ring longer than the runtime's", MemStats{NumGC: 0}, MemStats{NumGC: 1 << 20, PauseNs: ones(1 << 20)}, 0, false},
		{"a ring shorter than the runtime's", MemStats{NumGC: 0}, MemStats{NumGC: 2, PauseNs: ones(2)}, 0, false},
		{"pauses that overflow the sum", MemStats{NumGC: 0}, MemStats{NumGC: 2, PauseNs: ring(map[uint64]uint64{1: math.MaxUint64, 2: 2})}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				ns uint64
				ok bool
			}
			done := make(chan result, 1)
			go func() {
				ns, ok := PauseDuring(tt.start, tt.end)
				done <- result{ns, ok}
			}()
			select {
			case r := <-done:
				if r.ns != tt.want || r.ok != tt.ok {
					t.Errorf("PauseDuring = %d, %v; want %d, %v", r.ns, r.ok, tt.want, tt.ok)
				}
			case <-time.After(60 * time.Second): // a hang guard: generous, since a loaded machine is slow (issue 58)
				t.Fatal("PauseDuring did not return within 60 s")
			}
		})
	}
}

// TestParseMemStatsBoundsPauseNs: a PauseNs line longer than the runtime's
// 256 entries is not kept (nor split into millions of fields first).
func TestParseMemStatsBoundsPauseNs(t *testing.T) {
	const counters = "# TotalAlloc = 1\n# Mallocs = 1\n# NumGC = 1\n"
	long := "# PauseNs = [" + strings.Repeat("1 ", 257) + "]\n"
	m, err := parseMemStats(strings.NewReader(counters + long))
	if err != nil {
		t.Fatal(err)
	}
	if m.PauseNs != nil {
		t.Errorf("a PauseNs of 257 entries parsed as %d entries, want nil", len(m.PauseNs))
	}
	exact := "# PauseNs = [" + strings.Repeat("1 ", 256) + "]\n"
	if m, _ := parseMemStats(strings.NewReader(counters + exact)); len(m.PauseNs) != 256 {
		t.Errorf("a PauseNs of 256 entries parsed as %d", len(m.PauseNs))
	}
}

func ones(n int) []uint64 {
	r := make([]uint64, n)
	for i := range r {
		r[i] = 1
	}
	return r
}

// TestPauseDuringMatchesRuntime brackets forced collections with two real
// snapshots fetched over HTTP, with the automatic GC off so that only
// they happen, and checks the pauses against the runtime's own total.
func TestPauseDuringMatchesRuntime(t *testing.T) {
	srv := pprofServer(t)
	client := New(srv.URL, "/debug/pprof", nil)
	// SetGCPercent(-1) also waits for a collection under way to finish.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	start, err := client.MemStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const collections = 5
	for range collections {
		runtime.GC()
	}
	runtime.ReadMemStats(&after)
	end, err := client.MemStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	if got := end.NumGC - start.NumGC; got != collections {
		t.Fatalf("NumGC grew by %d, want %d (a GC ran that the test did not force)", got, collections)
	}
	got, ok := PauseDuring(start, end)
	if !ok {
		t.Fatal("PauseDuring not ok over 5 collections")
	}
	if want := after.PauseTotalNs - before.PauseTotalNs; got != want {
		t.Errorf("PauseDuring = %d ns, runtime.MemStats.PauseTotalNs grew by %d ns", got, want)
	}
	if got == 0 {
		t.Error("5 collections paused for 0 ns")
	}
}

func uintText(v uint64) string { return strconv.FormatUint(v, 10) }

func joinUints(vs []uint64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = uintText(v)
	}
	return strings.Join(parts, " ")
}
