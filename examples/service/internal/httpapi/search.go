package httpapi

import (
	"net/http"

	"example.com/perfgate-example/internal/search"
)

// searchResponse is the body of GET /search.
type searchResponse struct {
	Query string          `json:"query"`
	Total int             `json:"total"` // all matches, not just the returned items
	Items []search.Result `json:"items"`
}

// handleSearch answers GET /search?q=term with the best matching products.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	query, err := search.ParseQuery(r.URL.Query().Get("q"))
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "q: "+err.Error())
		return
	}
	items, total := s.index.Search(query)
	if items == nil {
		items = []search.Result{} // encode as [], not null
	}
	s.writeJSON(w, http.StatusOK, searchResponse{Query: query.String(), Total: total, Items: items})
}
