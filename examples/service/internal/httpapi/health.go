package httpapi

import "net/http"

// handleHealth answers GET /healthz. It checks nothing beyond "the process
// serves HTTP": load generators poll it to know when to start, and it must
// stay cheap and dependency-free so a slow downstream cannot fail it.
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}
