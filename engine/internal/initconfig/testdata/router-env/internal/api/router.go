package api

import (
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// Router serves the API.
func Router() http.Handler {
	r := chi.NewRouter()
	r.Get("/ping", func(w http.ResponseWriter, r *http.Request) {})
	r.Get("/users", func(w http.ResponseWriter, r *http.Request) {})
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {})
	r.Get("/events/stream", func(w http.ResponseWriter, r *http.Request) {})
	r.Mount("/debug", middleware.Profiler())
	_ = os.Getenv("DATABASE_URL")
	return r
}
