package capture

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"runtime"
	"testing"
)

// TestMutexFractionReadsTheRuntimesSetting asks a real net/http/pprof
// handler, in this process, with the fraction off and on.
func TestMutexFractionReadsTheRuntimesSetting(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(srv.URL, "/debug/pprof", srv.Client())
	defer c.Close()
	previous := runtime.SetMutexProfileFraction(0)
	defer runtime.SetMutexProfileFraction(previous)
	for _, fraction := range []int{0, 5} {
		runtime.SetMutexProfileFraction(fraction)
		got, err := c.MutexFraction(context.Background())
		if err != nil || got != int64(fraction) {
			t.Errorf("MutexFraction = %d, %v; want %d", got, err, fraction)
		}
	}
}
