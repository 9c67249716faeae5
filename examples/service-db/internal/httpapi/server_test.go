package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"example.com/servicedb/internal/orders"
)

// fakeStore holds orders in memory; down makes every call fail as an
// unreachable database would.
type fakeStore struct {
	orders map[int64]orders.Order
	down   bool
}

var errDown = errors.New("connection refused")

func (f *fakeStore) Get(_ context.Context, id int64) (orders.Order, error) {
	if f.down {
		return orders.Order{}, errDown
	}
	o, ok := f.orders[id]
	if !ok {
		return orders.Order{}, orders.ErrNotFound
	}
	return o, nil
}

func (f *fakeStore) Create(_ context.Context, customer, item string, qty int) (orders.Order, error) {
	if f.down {
		return orders.Order{}, errDown
	}
	o := orders.Order{ID: int64(len(f.orders) + 1), Customer: customer, Item: item, Qty: qty, Created: time.Unix(0, 0).UTC()}
	f.orders[o.ID] = o
	return o, nil
}

func (f *fakeStore) Ping(context.Context) error {
	if f.down {
		return errDown
	}
	return nil
}

func TestHandlers(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, body string
		down                     bool
		status                   int
		contains                 string
	}{
		{"health", "GET", "/healthz", "", false, 200, "ok"},
		{"health without a database", "GET", "/healthz", "", true, 503, "database unreachable"},
		{"get", "GET", "/orders/1", "", false, 200, `"customer":"c1"`},
		{"get unknown", "GET", "/orders/99", "", false, 404, "no such order"},
		{"get bad id", "GET", "/orders/x", "", false, 400, "positive integer"},
		{"get zero id", "GET", "/orders/0", "", false, 400, "positive integer"},
		{"get without a database", "GET", "/orders/1", "", true, 500, "database error"},
		{"create", "POST", "/orders", `{"customer":"c2","item":"i2","qty":3}`, false, 201, `"id":2`},
		{"create bad JSON", "POST", "/orders", `{"customer":`, false, 400, "body must be JSON"},
		{"create unknown field", "POST", "/orders", `{"customer":"c","item":"i","qty":1,"x":1}`, false, 400, "body must be JSON"},
		{"create zero qty", "POST", "/orders", `{"customer":"c","item":"i","qty":0}`, false, 400, "qty must be"},
		{"create without a database", "POST", "/orders", `{"customer":"c","item":"i","qty":1}`, true, 500, "database error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &fakeStore{orders: map[int64]orders.Order{1: {ID: 1, Customer: "c1", Item: "i1", Qty: 1}}, down: tc.down}
			mux := http.NewServeMux()
			New(store, slog.New(slog.NewTextHandler(io.Discard, nil))).Register(mux)
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body)))
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.contains) {
				t.Errorf("%s %s: %d %q, want %d containing %q", tc.method, tc.path, rec.Code, rec.Body.String(), tc.status, tc.contains)
			}
		})
	}
}
