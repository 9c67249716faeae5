package capture

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Retained is what a service keeps alive at one instant: its goroutines,
// and its live heap right after a forced garbage collection. Their growth
// over a window, per request, is a leak; neither depends on the machine.
type Retained struct {
	Goroutines    uint64 `json:"goroutines"`
	HeapLiveBytes uint64 `json:"heap_live_bytes"`
}

// Retained reads the goroutine count (the goroutine profile's debug=1
// header) and the live heap after a forced GC (the heap profile's gc=1
// handling runs runtime.GC before it writes MemStats). The forced GC costs
// the service a collection, so it is read outside the measured window.
func (c *Client) Retained(ctx context.Context) (Retained, error) {
	body, err := c.get(ctx, "/heap?gc=1&debug=1", answerTimeout)
	if err != nil {
		return Retained{}, err
	}
	ms, err := parseMemStats(bytes.NewReader(body))
	if err != nil {
		return Retained{}, err
	}
	body, err = c.get(ctx, "/goroutine?debug=1", answerTimeout)
	if err != nil {
		return Retained{}, err
	}
	n, err := parseGoroutineTotal(body)
	if err != nil {
		return Retained{}, err
	}
	return Retained{Goroutines: n, HeapLiveBytes: ms.HeapAlloc}, nil
}

// parseGoroutineTotal reads "goroutine profile: total N", the first line
// of the debug=1 goroutine profile.
func parseGoroutineTotal(body []byte) (uint64, error) {
	line := firstLine(body)
	rest, ok := strings.CutPrefix(line, "goroutine profile: total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile: first line %q is not \"goroutine profile: total N\"", line)
	}
	return strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
}
