package httpapi

import (
	"net/http"

	"example.com/perfgate-example/internal/report"
)

// handleReport answers GET /report with per-category catalog statistics.
func (s *Server) handleReport(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, report.Build(s.catalog.All()))
}
