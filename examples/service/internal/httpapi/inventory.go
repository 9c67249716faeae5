package httpapi

import (
	"net/http"
	"strconv"

	"example.com/perfgate-example/internal/inventory"
)

// handleInventory answers GET /inventory/{id} with the product's stock.
//
// This is the inventory service's own endpoint. The example runs it in the
// same process so the demo is a single binary, but POST /order still calls
// it over HTTP, exactly as it would call a separate service.
func (s *Server) handleInventory(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 {
		s.writeError(w, http.StatusBadRequest, "id must be a positive integer")
		return
	}
	available, ok := s.stock.Available(id)
	if !ok {
		s.writeError(w, http.StatusNotFound, "product not found")
		return
	}
	s.writeJSON(w, http.StatusOK, inventory.Level{ID: id, Available: available})
}
