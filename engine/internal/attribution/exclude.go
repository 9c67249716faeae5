package attribution

import (
	"strings"

	"github.com/google/pprof/profile"
)

// excluded reports samples that say nothing about the service's requests:
// perfgate's own capture (the net/http/pprof handlers, which run during
// every window: the delta-profile handlers alone block for the whole
// window) and, in the block profile, goroutines parked between requests
// (an HTTP client's idle keep-alive connection loops).
func excluded(s *profile.Sample, kind string, cache names) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := cache.of(line.Function)
			if strings.HasPrefix(name, "net/http/pprof.") {
				return true
			}
			if kind == "block" && idleWaits[name] {
				return true
			}
		}
	}
	return false
}

var idleWaits = map[string]bool{
	"net/http.(*persistConn).writeLoop": true,
	"net/http.(*persistConn).readLoop":  true,
}
