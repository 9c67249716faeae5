package capture

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// MutexFraction reads the service's mutex profile fraction
// (runtime.SetMutexProfileFraction), which the text form of its mutex
// profile states as "sampling period=N": 0, Go's default, means the
// mutex profile stays empty whatever the contention.
func (c *Client) MutexFraction(ctx context.Context) (int64, error) {
	body, err := c.get(ctx, "/mutex?debug=1", answerTimeout)
	if err != nil {
		return 0, err
	}
	lines := bufio.NewScanner(bytes.NewReader(body))
	for i := 0; i < 5 && lines.Scan(); i++ {
		if v, ok := strings.CutPrefix(lines.Text(), "sampling period="); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("GET /mutex?debug=1: no \"sampling period=\" line: %s", firstLine(body))
}
