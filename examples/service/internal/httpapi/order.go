package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"example.com/perfgate-example/internal/inventory"
)

// maxOrderQty is the largest quantity one order may ask for; bigger orders
// go through sales, not the web shop.
const maxOrderQty = 100

// maxOrderBodyBytes bounds the request body. A valid order is a few dozen
// bytes; anything near this limit is abuse.
const maxOrderBodyBytes = 1 << 10

// orderRequest is the body of POST /order.
type orderRequest struct {
	ID  int `json:"id"`
	Qty int `json:"qty"`
}

// orderResponse confirms an order.
type orderResponse struct {
	ID             int    `json:"id"`
	Name           string `json:"name"`
	Qty            int    `json:"qty"`
	UnitPriceCents int64  `json:"unitPriceCents"`
	TotalCents     int64  `json:"totalCents"`
}

// validate checks the fields a well-formed JSON body can still get wrong.
func (o orderRequest) validate() error {
	switch {
	case o.ID < 1:
		return errors.New("id must be a positive integer")
	case o.Qty < 1 || o.Qty > maxOrderQty:
		return fmt.Errorf("qty must be between 1 and %d", maxOrderQty)
	}
	return nil
}

// handleOrder answers POST /order: it validates the order, asks the
// inventory service whether enough units are in stock, and prices it.
func (s *Server) handleOrder(w http.ResponseWriter, r *http.Request) {
	var order orderRequest
	if err := decodeJSONBody(w, r, &order, maxOrderBodyBytes); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid JSON body")
		return
	}
	if err := order.validate(); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	product, ok := s.catalog.Product(order.ID)
	if !ok {
		s.writeError(w, http.StatusNotFound, "product not found")
		return
	}

	available, err := s.inventory.Available(r.Context(), order.ID)
	switch {
	case errors.Is(err, inventory.ErrNotFound):
		s.writeError(w, http.StatusNotFound, "product not stocked")
		return
	case err != nil:
		s.log.Error("checking inventory", "product", order.ID, "err", err)
		s.writeError(w, http.StatusBadGateway, "inventory unavailable")
		return
	case available < order.Qty:
		s.writeError(w, http.StatusConflict, "insufficient stock")
		return
	}

	s.writeJSON(w, http.StatusOK, orderResponse{
		ID:             product.ID,
		Name:           product.Name,
		Qty:            order.Qty,
		UnitPriceCents: product.PriceCents,
		TotalCents:     product.PriceCents * int64(order.Qty),
	})
}

// decodeJSONBody decodes exactly one JSON object of at most maxBytes from
// the request body into dst. Unknown fields and trailing data are errors: a typo such as "qyt"
// should fail loudly rather than order a default quantity.
func decodeJSONBody(w http.ResponseWriter, r *http.Request, dst any, maxBytes int64) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return errors.New("body must contain a single JSON object")
	}
	return nil
}
