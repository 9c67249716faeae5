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
	TotalAlloc   uint64 `json:"total_alloc"`
	Mallocs      uint64 `json:"mallocs"`
	Frees        uint64 `json:"frees"`
	HeapAlloc    uint64 `json:"heap_alloc"`
	HeapInuse    uint64 `json:"heap_inuse"`
	Sys          uint64 `json:"sys"`
	NumGC        uint64 `json:"num_gc"`
	PauseTotalNs uint64 `json:"pause_total_ns"`
}

// parseMemStats reads the "# Name = value" lines of a debug=1 heap profile.
func parseMemStats(r io.Reader) (MemStats, error) {
	fields := map[string]*uint64{}
	var m MemStats
	fields["TotalAlloc"], fields["Mallocs"], fields["Frees"] = &m.TotalAlloc, &m.Mallocs, &m.Frees
	fields["HeapAlloc"], fields["HeapInuse"], fields["Sys"] = &m.HeapAlloc, &m.HeapInuse, &m.Sys
	fields["NumGC"], fields["PauseTotalNs"] = &m.NumGC, &m.PauseTotalNs
	found := 0
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "# ") {
			continue
		}
		name, value, ok := strings.Cut(line[2:], " = ")
		target, known := fields[name]
		if !ok || !known {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return m, fmt.Errorf("MemStats %s = %q: %w", name, value, err)
		}
		*target = v
		found++
	}
	if err := scanner.Err(); err != nil {
		return m, err
	}
	if found < len(fields) {
		return m, fmt.Errorf("the heap profile has no runtime.MemStats section (found %d of %d counters)", found, len(fields))
	}
	return m, nil
}
