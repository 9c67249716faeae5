package capture

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// MemStats are the runtime.MemStats counters perfgate needs. The heap
// profile's debug=1 text ends with them, so any service that mounts
// net/http/pprof provides them without code changes.
type MemStats struct {
	TotalAlloc uint64
	Mallocs    uint64
	Frees      uint64
	HeapAlloc  uint64
	HeapInuse  uint64
	Sys        uint64
	NumGC      uint64
	// PauseNs is the runtime's circular buffer of the last 256 GC pauses
	// (the debug=1 text carries it, not PauseTotalNs); see PauseDuring.
	// report.json leaves it out: the run's GC pause figure says it.
	PauseNs []uint64
}

// Report is the counters as report.json records them.
func (m MemStats) Report() report.MemStats {
	return report.MemStats{
		TotalAlloc: m.TotalAlloc, Mallocs: m.Mallocs, Frees: m.Frees,
		HeapAlloc: m.HeapAlloc, HeapInuse: m.HeapInuse, Sys: m.Sys, NumGC: m.NumGC,
	}
}

// pauseRing is the length of runtime.MemStats.PauseNs: the runtime keeps
// the last 256 pauses, the one of collection n (1-based) at (n+255)%256.
const pauseRing = 256

// PauseDuring is the total GC pause between two snapshots, exact while at
// most 256 collections happened in between; ok is false otherwise. The
// snapshots come from the service under test, so nothing in them is
// trusted: a ring of another length, counters at the edge of uint64 or
// pauses that overflow the sum give not ok, never a long loop.
func PauseDuring(start, end MemStats) (ns uint64, ok bool) {
	if len(end.PauseNs) != pauseRing || end.NumGC < start.NumGC || end.NumGC-start.NumGC > pauseRing {
		return 0, false
	}
	for gc := end.NumGC; gc > start.NumGC; gc-- {
		var carry uint64
		ns, carry = bits.Add64(ns, end.PauseNs[(gc-1)%pauseRing], 0)
		if carry != 0 {
			return 0, false
		}
	}
	return ns, true
}

// parseMemStats reads the "# Name = value" lines of a debug=1 heap profile.
func parseMemStats(r io.Reader) (MemStats, error) {
	fields := map[string]*uint64{}
	var m MemStats
	fields["TotalAlloc"], fields["Mallocs"], fields["Frees"] = &m.TotalAlloc, &m.Mallocs, &m.Frees
	fields["HeapAlloc"], fields["HeapInuse"], fields["Sys"] = &m.HeapAlloc, &m.HeapInuse, &m.Sys
	fields["NumGC"] = &m.NumGC
	// The counters perfgate cannot do without; the others are recorded
	// when present.
	required := map[string]bool{"TotalAlloc": true, "Mallocs": true, "NumGC": true}
	found := 0
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "# ") {
			continue
		}
		name, value, ok := strings.Cut(line[2:], " = ")
		if ok && name == "PauseNs" {
			m.PauseNs = parseArray(value)
			continue
		}
		target, known := fields[name]
		if !ok || !known {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return m, fmt.Errorf("MemStats %s = %q: %w", name, value, err)
		}
		*target = v
		if required[name] {
			found++
		}
	}
	if err := scanner.Err(); err != nil {
		return m, err
	}
	if found < len(required) {
		return m, fmt.Errorf("the heap profile (debug=1) has no runtime.MemStats section with TotalAlloc, Mallocs and NumGC")
	}
	return m, nil
}

// parseArray reads "[1 2 3]" of at most pauseRing numbers; anything else
// is nil, read no further than needed to tell.
func parseArray(s string) []uint64 {
	out := make([]uint64, 0, pauseRing)
	for f := range strings.FieldsSeq(strings.Trim(strings.TrimSpace(s), "[]")) {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil || len(out) == pauseRing {
			return nil
		}
		out = append(out, v)
	}
	return out
}
