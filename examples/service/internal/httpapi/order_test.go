package httpapi

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"example.com/perfgate-example/internal/inventory"
)

func TestOrder(t *testing.T) {
	env := newTestEnv(t)
	product, _ := env.catalog.Product(1)
	available, _ := env.stock.Available(1)
	if available >= maxOrderQty {
		t.Fatalf("test needs product 1 to have fewer than %d units, has %d", maxOrderQty, available)
	}

	t.Run("accepted", func(t *testing.T) {
		rec := env.do(http.MethodPost, "/order", `{"id":1,"qty":2}`)
		if rec.Code != http.StatusOK {
			t.Fatalf("status = %d, want 200; body %s", rec.Code, rec.Body)
		}
		got := decodeBody[orderResponse](t, rec)
		want := orderResponse{
			ID:             1,
			Name:           product.Name,
			Qty:            2,
			UnitPriceCents: product.PriceCents,
			TotalCents:     2 * product.PriceCents,
		}
		if got != want {
			t.Errorf("response = %+v, want %+v", got, want)
		}
	})

	tests := []struct {
		name        string
		body        string
		wantStatus  int
		wantMessage string
	}{
		{name: "malformed JSON", body: `{"id":1,`, wantStatus: http.StatusBadRequest, wantMessage: "invalid JSON"},
		{name: "empty body", body: ``, wantStatus: http.StatusBadRequest, wantMessage: "invalid JSON"},
		{name: "wrong type", body: `{"id":"one","qty":2}`, wantStatus: http.StatusBadRequest, wantMessage: "invalid JSON"},
		{name: "unknown field", body: `{"id":1,"qyt":2}`, wantStatus: http.StatusBadRequest, wantMessage: "invalid JSON"},
		{name: "trailing data", body: `{"id":1,"qty":2}{}`, wantStatus: http.StatusBadRequest, wantMessage: "invalid JSON"},
		{name: "missing id", body: `{"qty":2}`, wantStatus: http.StatusBadRequest, wantMessage: "id must be"},
		{name: "zero qty", body: `{"id":1,"qty":0}`, wantStatus: http.StatusBadRequest, wantMessage: "qty must be"},
		{name: "qty too large", body: `{"id":1,"qty":101}`, wantStatus: http.StatusBadRequest, wantMessage: "qty must be"},
		{name: "unknown product", body: `{"id":999999,"qty":1}`, wantStatus: http.StatusNotFound, wantMessage: "not found"},
		{name: "insufficient stock", body: `{"id":1,"qty":100}`, wantStatus: http.StatusConflict, wantMessage: "insufficient stock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, env.do(http.MethodPost, "/order", tt.body), tt.wantStatus, tt.wantMessage)
		})
	}
}

// stubInventory is an inventory dependency that always fails with err.
type stubInventory struct{ err error }

func (s stubInventory) Available(context.Context, int) (int, error) { return 0, s.err }

func TestOrderInventoryFailures(t *testing.T) {
	base := newTestEnv(t)
	tests := []struct {
		name        string
		err         error
		wantStatus  int
		wantMessage string
	}{
		{name: "not stocked", err: inventory.ErrNotFound, wantStatus: http.StatusNotFound, wantMessage: "not stocked"},
		{name: "downstream down", err: errors.New("connection refused"), wantStatus: http.StatusBadGateway, wantMessage: "inventory unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newTestEnvWith(t, base.catalog, base.stock, stubInventory{err: tt.err})
			checkError(t, env.do(http.MethodPost, "/order", `{"id":1,"qty":1}`), tt.wantStatus, tt.wantMessage)
		})
	}
}
