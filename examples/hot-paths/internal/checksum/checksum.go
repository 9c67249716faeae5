// Package checksum is a small hot path of tight loops over bytes, the
// kind whose speed depends most on where its instructions sit: GET
// /sum?size=N&seed=S fills N bytes from a xorshift generator and answers
// with their FNV-1a hash, a byte histogram's entropy and the longest run.
package checksum

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
)

// maxSize bounds size: a request cannot ask for unbounded work.
const maxSize = 1 << 20

// Handler serves GET /sum.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sum", serveSum)
	return mux
}

func serveSum(w http.ResponseWriter, r *http.Request) {
	size, err := strconv.Atoi(r.URL.Query().Get("size"))
	if err != nil || size < 1 || size > maxSize {
		http.Error(w, fmt.Sprintf("size must be 1..%d", maxSize), http.StatusBadRequest)
		return
	}
	seed, err := strconv.ParseUint(r.URL.Query().Get("seed"), 10, 64)
	if err != nil || seed == 0 {
		http.Error(w, "seed must be a positive integer", http.StatusBadRequest)
		return
	}
	buf := make([]byte, size)
	Fill(buf, seed)
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "fnv1a %016x entropy %.4f longest-run %d\n", FNV1a(buf), Entropy(buf), LongestRun(buf))
}

// Fill writes xorshift64 output into buf.
func Fill(buf []byte, seed uint64) {
	x := seed
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x >> 32)
	}
}

// FNV1a is the 64-bit FNV-1a hash of buf.
func FNV1a(buf []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range buf {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}

// Entropy is the Shannon entropy of buf's bytes, in bits per byte.
func Entropy(buf []byte) float64 {
	var counts [256]int
	for _, b := range buf {
		counts[b]++
	}
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(buf))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// LongestRun is the length of the longest run of bytes whose low bit
// stays the same.
func LongestRun(buf []byte) int {
	longest, run := 0, 0
	for i := range buf {
		if i > 0 && buf[i]&1 == buf[i-1]&1 {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	return longest
}
