package httpapi

import (
	"encoding/json"
	"net/http"
)

// errorResponse is the body of every non-2xx JSON response, so clients can
// handle errors uniformly.
type errorResponse struct {
	Error string `json:"error"`
}

// writeJSON writes v as the JSON response body with the given status.
//
// It marshals before writing so that an encoding failure can still become
// a clean 500 instead of a truncated 200.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding response", "err", err)
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes a JSON error response. message is shown to the client,
// so it must not contain internal details.
func (s *Server) writeError(w http.ResponseWriter, status int, message string) {
	s.writeJSON(w, status, errorResponse{Error: message})
}
