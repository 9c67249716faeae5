package main

import (
	"net"
	"testing"
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
