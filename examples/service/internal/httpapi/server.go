// Package httpapi is the HTTP face of the example service: routing, request
// decoding, validation and response encoding. Business logic lives in the
// catalog, search, report and inventory packages.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"example.com/perfgate-example/internal/catalog"
	"example.com/perfgate-example/internal/inventory"
	"example.com/perfgate-example/internal/search"
)

// StockChecker is the downstream inventory service as the order handler
// sees it. In production it is an *inventory.Client talking HTTP.
type StockChecker interface {
	// Available returns the units in stock, or inventory.ErrNotFound.
	Available(ctx context.Context, productID int) (int, error)
}

// Server holds the dependencies shared by all handlers. It is safe for
// concurrent use: everything it references is read-only or goroutine-safe.
type Server struct {
	catalog   *catalog.Catalog
	index     *search.Index
	stock     *inventory.Stock
	inventory StockChecker
	log       *slog.Logger
}

// New returns a Server over products. stock is what GET /inventory/{id}
// serves; inventoryService is how POST /order asks about stock. They are
// separate because in a real deployment the inventory service is another
// process.
func New(products *catalog.Catalog, stock *inventory.Stock, inventoryService StockChecker, log *slog.Logger) *Server {
	return &Server{
		catalog:   products,
		index:     search.NewIndex(products),
		stock:     stock,
		inventory: inventoryService,
		log:       log,
	}
}

// Register adds the service's routes to mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /search", s.handleSearch)
	mux.HandleFunc("POST /order", s.handleOrder)
	mux.HandleFunc("GET /inventory/{id}", s.handleInventory)
	mux.HandleFunc("GET /report", s.handleReport)
}
