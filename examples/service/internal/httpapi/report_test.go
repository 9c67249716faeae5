package httpapi

import (
	"net/http"
	"testing"

	"example.com/perfgate-example/internal/report"
)

func TestReport(t *testing.T) {
	env := newTestEnv(t)
	tests := []struct {
		name       string
		method     string
		wantStatus int
	}{
		{name: "get", method: http.MethodGet, wantStatus: http.StatusOK},
		{name: "wrong method", method: http.MethodPost, wantStatus: http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.do(tt.method, "/report", "")
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantStatus != http.StatusOK {
				return
			}
			got := decodeBody[report.Report](t, rec)
			if got.Products != env.catalog.Len() {
				t.Errorf("products = %d, want %d", got.Products, env.catalog.Len())
			}
			sum := 0
			for i, c := range got.Categories {
				sum += c.Products
				if i > 0 && c.Products > got.Categories[i-1].Products {
					t.Errorf("category %q (%d products) sorted after a smaller one", c.Category, c.Products)
				}
				if len(c.TopTags) == 0 {
					t.Errorf("category %q has no top tags", c.Category)
				}
			}
			if sum != got.Products {
				t.Errorf("categories add up to %d products, want %d", sum, got.Products)
			}
		})
	}
}
