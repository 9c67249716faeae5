package capture

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MemStats are the runtime.MemStats counters perfgate needs. The heap
// profile's debug=1 text ends with them, so any service that mounts
// net/http/pprof provides them without code changes.
type MemStats struct {
	TotalAlloc uint64 `json:"total_alloc"`
	Mallocs    uint64 `json:"mallocs"`
	Frees      uint64 `json:"frees"`
	HeapAlloc  uint64 `json:"heap_alloc"`
	HeapInuse  uint64 `json:"heap_inuse"`
	Sys        uint64 `json:"sys"`
	NumGC      uint64 `json:"num_gc"`
	// PauseNs is the runtime's circular buffer of the last 256 GC pauses
	// (the debug=1 text carries it, not PauseTotalNs); see PauseDuring.
	PauseNs []uint64 `json:"-"`
}

// PauseDuring is the total GC pause between two snapshots, exact while at
// most 256 collections happened in between (the runtime keeps the last 256
// pauses); ok is false otherwise.
func PauseDuring(start, end MemStats) (ns uint64, ok bool) {
	if end.NumGC < start.NumGC || end.NumGC-start.NumGC > uint64(len(end.PauseNs)) || len(end.PauseNs) == 0 {
		return 0, false
	}
	for gc := start.NumGC + 1; gc <= end.NumGC; gc++ {
		ns += end.PauseNs[(gc+uint64(len(end.PauseNs))-1)%uint64(len(end.PauseNs))]
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

// parseArray reads "[1 2 3]".
func parseArray(s string) []uint64 {
	fields := strings.Fields(strings.Trim(strings.TrimSpace(s), "[]"))
	out := make([]uint64, 0, len(fields))
	for _, f := range fields {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}
