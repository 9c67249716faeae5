package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"example.com/perfgate-example/internal/catalog"
	"example.com/perfgate-example/internal/inventory"
)

// testEnv is the service wired as in production: POST /order reaches
// GET /inventory/{id} over real HTTP on a loopback listener.
type testEnv struct {
	handler http.Handler
	catalog *catalog.Catalog
	stock   *inventory.Stock
}

func newTestEnv(tb testing.TB) *testEnv {
	tb.Helper()
	products := catalog.Generate(catalog.DefaultSize, catalog.DefaultSeed)
	stock := inventory.NewStock(products)

	// The inventory client needs the server's address before the server
	// has a handler, the same chicken-and-egg main solves with net.Listen.
	ts := httptest.NewUnstartedServer(nil)
	client := inventory.NewClient("http://"+ts.Listener.Addr().String(), 5*time.Second)
	env := newTestEnvWith(tb, products, stock, client)
	ts.Config.Handler = env.handler
	ts.Start()
	tb.Cleanup(func() {
		client.CloseIdleConnections()
		ts.Close()
	})
	return env
}

// newTestEnvWith wires the handlers with a caller-chosen inventory
// dependency, for tests that need the downstream to misbehave.
func newTestEnvWith(tb testing.TB, products *catalog.Catalog, stock *inventory.Stock, checker StockChecker) *testEnv {
	tb.Helper()
	mux := http.NewServeMux()
	New(products, stock, checker, slog.New(slog.NewTextHandler(io.Discard, nil))).Register(mux)
	return &testEnv{handler: mux, catalog: products, stock: stock}
}

// do sends one request straight to the handler and returns the recorded
// response.
func (e *testEnv) do(method, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// decodeBody decodes a JSON response into a value of type T, failing the
// test if the response is not JSON.
func decodeBody[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decoding %q: %v", rec.Body.String(), err)
	}
	return v
}

// checkError asserts an error response with the given status whose message
// contains wantMessage.
func checkError(t *testing.T, rec *httptest.ResponseRecorder, wantStatus int, wantMessage string) {
	t.Helper()
	if rec.Code != wantStatus {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, wantStatus, rec.Body)
	}
	got := decodeBody[errorResponse](t, rec)
	if !strings.Contains(got.Error, wantMessage) {
		t.Errorf("error = %q, want it to contain %q", got.Error, wantMessage)
	}
}
