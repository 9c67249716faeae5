package httpapi

import (
	"net/http"
	"testing"

	"example.com/perfgate-example/internal/inventory"
)

func TestInventory(t *testing.T) {
	env := newTestEnv(t)
	want42, _ := env.stock.Available(42)

	tests := []struct {
		name        string
		target      string
		wantStatus  int
		wantLevel   inventory.Level
		wantMessage string
	}{
		{name: "known product", target: "/inventory/42", wantStatus: http.StatusOK, wantLevel: inventory.Level{ID: 42, Available: want42}},
		{name: "unknown product", target: "/inventory/999999", wantStatus: http.StatusNotFound, wantMessage: "not found"},
		{name: "zero id", target: "/inventory/0", wantStatus: http.StatusBadRequest, wantMessage: "positive integer"},
		{name: "non-numeric id", target: "/inventory/abc", wantStatus: http.StatusBadRequest, wantMessage: "positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.do(http.MethodGet, tt.target, "")
			if tt.wantStatus != http.StatusOK {
				checkError(t, rec, tt.wantStatus, tt.wantMessage)
				return
			}
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %s", rec.Code, rec.Body)
			}
			if got := decodeBody[inventory.Level](t, rec); got != tt.wantLevel {
				t.Errorf("level = %+v, want %+v", got, tt.wantLevel)
			}
		})
	}
}
