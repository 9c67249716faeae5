package attribution

import (
	"testing"

	"github.com/google/pprof/profile"
)

func TestOwnCode(t *testing.T) {
	info := "/tmp/head: go1.26.8\n\tpath\texample.com/servicedb/cmd/server\n\tmod\texample.com/servicedb\t(devel)\t\n" +
		"\tdep\tgithub.com/jackc/pgx/v5\tv5.7.6\th1:x=\n\tdep\tgithub.com/old/lib\tv1.0.0\n\t=>\tgithub.com/fork/lib\tv1.0.1\th1:y=\n"
	code := OwnCode(info, "")
	for name, want := range map[string]bool{
		"example.com/servicedb/internal/orders.(*Store).Get":                   true,
		"example.com/perfgate-example/internal/httpapi.(*Server).handleSearch": true,
		"github.com/acme/shop/cart.Total":                                      true,
		"main.handler":                                                         true,
		"github.com/jackc/pgx/v55.x":                                           true,
		"github.com/jackc/pgx/v5/stdlib.(*driverConnector).Connect":            false,
		"github.com/jackc/pgx/v5.connect":                                      false,
		"github.com/fork/lib.Do":                                               false,
		"time.NewTimer":                                                        false,
		"crypto.Hash.New":                                                      false,
		"net/http.(*Transport).dialConn":                                       false,
		"golang.org/x/net/http2.(*Framer).ReadFrame":                           false,
	} {
		if got := code.Owns(name); got != want {
			t.Errorf("Owns(%q) = %v, want %v", name, got, want)
		}
	}
}

// frames builds a stack from the leaf up.
func frames(names ...string) []frame {
	fs := make([]frame, len(names))
	for i, n := range names {
		fs[i] = frame{name: n, line: int64(10 + i)}
	}
	return fs
}

func TestSiteSkipsTheRuntime(t *testing.T) {
	for _, tc := range []struct {
		stack     []frame
		site, via string
	}{
		// An allocation charged to the code that asked for it.
		{frames("runtime.mapassign_faststr", "example.com/svc/httpapi.(*Server).handleSearch", "net/http.HandlerFunc.ServeHTTP"),
			"example.com/svc/httpapi.(*Server).handleSearch", "runtime.mapassign_faststr"},
		// fmt.Sprintf's own string is fmt.Sprintf's, not its caller's.
		{frames("runtime.slicebytetostring", "fmt.Sprintf", "example.com/svc/httpapi.(*Server).handleSearch"),
			"fmt.Sprintf", "runtime.slicebytetostring"},
		{frames("internal/bytealg.IndexByteString", "runtime.mallocgc", "strings.Index", "main.f"), "strings.Index", "internal/bytealg.IndexByteString"},
		// A leaf outside the runtime is its own site.
		{frames("crypto/sha256.block", "main.hash"), "crypto/sha256.block", ""},
		// The garbage collector's workers have no caller outside it.
		{frames("runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"), "runtime.scanobject", ""},
	} {
		i, via := site(tc.stack)
		if at := tc.stack[i]; at.name != tc.site || via != tc.via {
			t.Errorf("site(%v) = %s via %q, want %s via %q", tc.stack, at.name, via, tc.site, tc.via)
		}
	}
}

func TestCallerIsTheNearestOwnFrame(t *testing.T) {
	code := OwnCode("\tdep\tgithub.com/jackc/pgx/v5\tv5.7.6\n")
	fs := frames("runtime.mallocgc", "github.com/jackc/pgx/v5.connect", "database/sql.(*DB).conn", "example.com/svc.(*Server).handleGet", "main.main")
	at, _ := site(fs)
	if c := code.callersAbove(fs)[at]; c == nil || c.name != "example.com/svc.(*Server).handleGet" || c.line != 13 {
		t.Errorf("caller = %+v; want handleGet line 13", c)
	}
	own := frames("runtime.makeslice", "example.com/svc.(*Server).handleGet")
	at, _ = site(own)
	if c := code.callersAbove(own)[at]; c != nil {
		t.Errorf("a site of the service's own code has no caller to name, got %+v", c)
	}
}

func TestRawSamplesUndoTheRuntimesScaling(t *testing.T) {
	// Heap sampling at 4 KiB: one sample of 1,000 objects of 64 B, written
	// scaled by 1/(1−e^(−64/4096)), stands for 1,000·(1−e^(−1/64)) ≈ 15.5
	// raw samples.
	heap := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects"}, {Type: "alloc_space"}},
		Period:     4096,
		Sample:     []*profile.Sample{{Value: []int64{1000, 64000}}},
	}
	raw, err := heapSampled("alloc_objects", "alloc_space")(heap)
	if err != nil {
		t.Fatal(err)
	}
	if got := raw(heap.Sample[0]); got < 15.4 || got > 15.6 {
		t.Errorf("raw heap samples = %v, want about 15.5", got)
	}
	// Mutex counts are multiples of the profile fraction (here 5).
	mutex := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "contentions"}, {Type: "delay"}},
		Sample:     []*profile.Sample{{Value: []int64{10, 1}}, {Value: []int64{35, 1}}, {Value: []int64{0, 0}}},
	}
	raw, err = fractionSampled("contentions")(mutex)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := raw(mutex.Sample[0]), raw(mutex.Sample[1]); a != 2 || b != 7 {
		t.Errorf("raw mutex samples = %v, %v, want 2 and 7", a, b)
	}
}
