package capture

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// lowerInflateLimit makes a small bomb enough to cross the limit, so the
// test does not need 256 MiB of memory to show it is never spent.
func lowerInflateLimit(t *testing.T, limit int64) {
	old := maxInflatedProfileBytes
	maxInflatedProfileBytes = limit
	t.Cleanup(func() { maxInflatedProfileBytes = old })
}

// TestGzipBombIsRefused: a body that inflates past the limit is refused
// with a message saying so, whether fetched from a service or read from a
// results file; profile.Parse alone would inflate all of it first.
func TestGzipBombIsRefused(t *testing.T) {
	lowerInflateLimit(t, 1<<20)
	bomb := gzipped(t, make([]byte, 64<<20)) // 64 MiB of zeros in ~64 KiB
	const want = "inflate to more than 1 MiB, the most perfgate decompresses"

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(bomb) }))
	defer srv.Close()
	client := New(srv.URL, "/debug/pprof", nil)
	dir := t.TempDir()
	for _, r := range client.Snapshot(t.Context(), dir, []string{"heap"}) {
		if !strings.Contains(r.Error, want) || r.File != "" {
			t.Errorf("fetched bomb: %+v, want an error containing %q and no file", r, want)
		}
	}

	path := filepath.Join(dir, "base.cpu.pb.gz")
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadProfile(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadProfile of a bomb: %v, want an error containing %q", err, want)
	}
}

// TestGzipInsideGzipIsRefused: profile.Parse would inflate an inner layer
// with no limit, so one layer is all that is accepted.
func TestGzipInsideGzipIsRefused(t *testing.T) {
	twice := gzipped(t, gzipped(t, []byte("not even a profile")))
	if _, err := parseProfile(twice); err == nil || !strings.Contains(err.Error(), "gzip inside gzip") {
		t.Errorf("parseProfile of a doubly gzipped body: %v", err)
	}
}

// TestProfilesUnderTheLimitParse: a real profile, gzipped as net/http/pprof
// sends it, and the same uncompressed, both parse under a limit just above
// its inflated size.
func TestProfilesUnderTheLimitParse(t *testing.T) {
	srv := pprofServer(t)
	body := heapProfile(t, srv)
	if !bytes.HasPrefix(body, gzipMagic) {
		t.Fatal("net/http/pprof did not gzip the heap profile")
	}
	p, err := parseProfile(body)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if err := p.WriteUncompressed(&raw); err != nil {
		t.Fatal(err)
	}
	inflated, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var n bytes.Buffer
	if _, err := n.ReadFrom(inflated); err != nil {
		t.Fatal(err)
	}
	lowerInflateLimit(t, int64(n.Len()))
	if _, err := parseProfile(body); err != nil {
		t.Errorf("a profile inflating to exactly the limit: %v", err)
	}
	if _, err := parseProfile(raw.Bytes()); err != nil {
		t.Errorf("an uncompressed profile: %v", err)
	}
}

func heapProfile(t *testing.T, srv *httptest.Server) []byte {
	t.Helper()
	resp, err := http.Get(srv.URL + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
