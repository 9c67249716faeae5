// Package httpapi is the orders API over HTTP: JSON in and out, errors as
// {"error": "..."} with a status that says whose fault it was.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"example.com/servicedb/internal/orders"
)

// Store is what the handlers need from the database; orders.Store
// implements it, tests fake it.
type Store interface {
	Get(ctx context.Context, id int64) (orders.Order, error)
	Create(ctx context.Context, customer, item string, qty int) (orders.Order, error)
	Ping(ctx context.Context) error
}

// queryTimeout bounds one request's database work: a slow database fails
// the request rather than piling requests up.
const queryTimeout = 2 * time.Second

// Server holds the handlers' dependencies.
type Server struct {
	store Store
	log   *slog.Logger
}

// New returns a Server on store.
func New(store Store, log *slog.Logger) *Server { return &Server{store: store, log: log} }

// Register adds the API's routes to mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /orders/{id}", s.handleGet)
	mux.HandleFunc("POST /orders", s.handleCreate)
}

// handleHealth answers 200 once the database answers too: a service that
// cannot reach its database is not ready to serve.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("health: database unreachable", "err", err)
		s.writeError(w, http.StatusServiceUnavailable, "database unreachable")
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		s.writeError(w, http.StatusBadRequest, "id must be a positive integer")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	o, err := s.store.Get(ctx, id)
	switch {
	case errors.Is(err, orders.ErrNotFound):
		s.writeError(w, http.StatusNotFound, "no such order")
	case err != nil:
		s.log.Error("get order", "id", id, "err", err)
		s.writeError(w, http.StatusInternalServerError, "database error")
	default:
		s.writeJSON(w, http.StatusOK, o)
	}
}

// createRequest is the body of POST /orders.
type createRequest struct {
	Customer string `json:"customer"`
	Item     string `json:"item"`
	Qty      int    `json:"qty"`
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, "body must be JSON like {\"customer\":\"c1\",\"item\":\"i1\",\"qty\":2}")
		return
	}
	if req.Customer == "" || req.Item == "" || req.Qty < 1 || req.Qty > 1000 {
		s.writeError(w, http.StatusBadRequest, "customer and item must be set and qty must be 1 to 1000")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	o, err := s.store.Create(ctx, req.Customer, req.Item, req.Qty)
	if err != nil {
		s.log.Error("create order", "err", err)
		s.writeError(w, http.StatusInternalServerError, "database error")
		return
	}
	s.writeJSON(w, http.StatusCreated, o)
}

// writeJSON marshals before writing, so an encoding failure is a clean 500.
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

// writeError writes {"error": message}; message is shown to clients, so it
// never carries the database's own words.
func (s *Server) writeError(w http.ResponseWriter, status int, message string) {
	s.writeJSON(w, status, struct {
		Error string `json:"error"`
	}{message})
}
