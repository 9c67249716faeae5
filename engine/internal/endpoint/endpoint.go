// Package endpoint compares the request lines of load.requests one by one.
// The gating metrics pool the whole mix, so a handler that became twice as
// slow but serves a quarter of the requests moves the mix's latency by far
// less than its own; per endpoint it shows undiluted. Each run's window is
// kept as vegeta results (results.bin), which carry every request's method
// and URL: they are grouped by the configured lines, summarised per run
// into the figures the catalog reads (latency quantiles, error rate,
// throughput), and compared over the valid pairs with the same statistics
// as the metrics. Endpoints are reported, never gating.
package endpoint

import "github.com/perfgate/perfgate/engine/internal/report"

// Line is one request line: a method and a path with its query, exactly
// as load.requests configures them. Lines that differ only in headers or
// body are one line, since a result does not tell them apart.
type Line struct {
	Method, Path string
}

// String is the line as reports and messages show it: "GET /search?q=alpha".
func (l Line) String() string { return l.Method + " " + l.Path }

// Lines are the distinct request lines of requests, in configured order:
// the only keys endpoints are grouped by, so whatever URL a result carries
// never adds one.
func Lines(requests []report.Request) []Line {
	var lines []Line
	seen := map[Line]bool{}
	for _, r := range requests {
		l := Line{Method: r.Method, Path: r.Path}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	return lines
}
