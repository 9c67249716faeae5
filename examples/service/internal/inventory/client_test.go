package inventory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestClientAvailable(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		want     int
		wantErr  bool
		notFound bool
	}{
		{name: "in stock", status: http.StatusOK, body: `{"id":7,"available":12}`, want: 12},
		{name: "unknown product", status: http.StatusNotFound, body: `{"error":"product not found"}`, wantErr: true, notFound: true},
		{name: "server error", status: http.StatusInternalServerError, body: `oops`, wantErr: true},
		{name: "garbled body", status: http.StatusOK, body: `{"available":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/inventory/7" {
					t.Errorf("path = %q, want /inventory/7", r.URL.Path)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer ts.Close()
			client := NewClient(ts.URL, time.Second)
			defer client.CloseIdleConnections()

			got, err := client.Available(context.Background(), 7)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			if errors.Is(err, ErrNotFound) != tt.notFound {
				t.Errorf("err = %v, want ErrNotFound: %v", err, tt.notFound)
			}
			if got != tt.want {
				t.Errorf("available = %d, want %d", got, tt.want)
			}
		})
	}
}
