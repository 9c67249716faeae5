package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"example.com/perfgate-example/internal/inventory"
)

func TestSelfURL(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want string
	}{
		{addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, want: "http://127.0.0.1:8080"},
		{addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 80}, want: "http://10.1.2.3:80"},
		{addr: &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, want: "http://127.0.0.1:8080"},
		{addr: &net.TCPAddr{IP: net.IPv4zero, Port: 9000}, want: "http://127.0.0.1:9000"},
		{addr: &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, want: "http://[::1]:8080"},
	}
	for _, tt := range tests {
		if got := selfURL(tt.addr); got != tt.want {
			t.Errorf("selfURL(%v) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// TestInventoryOverTLS calls an HTTPS inventory served with the self-signed
// certificate through the client that trusts it. It checks behaviour only:
// how many handshakes the calls cost is perfgate's job (the
// tls-per-request regression keeps this test green).
func TestInventoryOverTLS(t *testing.T) {
	serverTLS, roots, err := selfSignedTLS(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /inventory/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%s,"available":5}`, r.PathValue("id"))
	})
	server := &http.Server{Handler: mux}
	go func() { _ = server.Serve(tls.NewListener(listener, serverTLS)) }() // ends with server.Close
	defer server.Close()

	client := inventory.NewTLSClient("https://"+listener.Addr().String(), time.Second, roots)
	defer client.CloseIdleConnections()
	for range 5 {
		available, err := client.Available(context.Background(), 1)
		if err != nil || available != 5 {
			t.Fatalf("Available = %d, %v; want 5", available, err)
		}
	}
}
