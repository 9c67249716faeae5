package capture

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// Retained reads what the service keeps alive (report.Retained): the
// goroutine count (the goroutine profile's debug=1 text) once it has
// settled, then the live heap after forced GCs (the
// heap profile's gc=1 handling runs runtime.GC before it writes
// MemStats). Right after an attack, goroutines of its last requests'
// outbound calls are still closing connections; counting them would make
// a busy window look like a leak, so the count is read until two reads
// settleGap apart agree (at most settleReads reads). The forced GC costs
// the service a collection, so this is read outside the measured window.
func (c *Client) Retained(ctx context.Context) (report.Retained, error) {
	var total, serving uint64
	for read := 0; read < settleReads; read++ {
		if read > 0 {
			select {
			case <-time.After(settleGap):
			case <-ctx.Done():
				return report.Retained{}, ctx.Err()
			}
		}
		body, err := c.get(ctx, "/goroutine?debug=1", answerTimeout)
		if err != nil {
			return report.Retained{}, err
		}
		t, s, err := parseGoroutines(body)
		if err != nil {
			return report.Retained{}, err
		}
		if read > 0 && t-s == total-serving {
			break
		}
		total, serving = t, s
	}
	// Two collections: the first moves what sync.Pools hold into their
	// victim caches, which stay live until the second. Pooled buffers
	// (fmt's, net/http's) come and go with the traffic and are not kept
	// by the service; after one GC they moved an A/A duet's 1-s windows by
	// up to 80 KiB per 1,000 requests.
	var body []byte
	var err error
	for range 2 {
		if body, err = c.get(ctx, "/heap?gc=1&debug=1", answerTimeout); err != nil {
			return report.Retained{}, err
		}
	}
	ms, err := parseMemStats(bytes.NewReader(body))
	if err != nil {
		return report.Retained{}, err
	}
	return report.Retained{Goroutines: total - serving, Connections: serving, HeapLiveBytes: ms.HeapAlloc}, nil
}

// settleGap and settleReads bound the wait for a steady goroutine count:
// at most a second.
const (
	settleGap   = 100 * time.Millisecond
	settleReads = 10
)

// servingFrame is the frame at the bottom of every goroutine net/http
// runs for one inbound connection, idle or busy with a request (this
// profile request's own included).
const servingFrame = "net/http.(*conn).serve"

// parseGoroutines reads the debug=1 goroutine profile: the total from its
// header, and how many goroutines serve an inbound connection. Each
// record is "N @ addresses" followed by "#\taddress\tfunction+offset\tfile"
// lines, one per frame.
func parseGoroutines(body []byte) (total, serving uint64, err error) {
	if total, err = parseGoroutineTotal(body); err != nil {
		return 0, 0, err
	}
	var count uint64
	counted := false
	for _, line := range strings.Split(string(body), "\n") {
		if n, _, ok := strings.Cut(line, " @ "); ok && !strings.HasPrefix(line, "#") {
			count, _ = strconv.ParseUint(n, 10, 64)
			counted = false
			continue
		}
		if !counted && strings.HasPrefix(line, "#") && strings.Contains(line, servingFrame+"+") {
			serving += count
			counted = true
		}
	}
	return total, min(serving, total), nil
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
