// Command server runs the perfgate example service: a small product API
// with search, ordering (which calls an inventory service over HTTP),
// reporting and pprof endpoints.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"example.com/perfgate-example/internal/catalog"
	"example.com/perfgate-example/internal/httpapi"
	"example.com/perfgate-example/internal/inventory"
)

const (
	// inventoryTimeout bounds one call to the inventory service. An order
	// that cannot learn its stock within a second fails rather than queues.
	inventoryTimeout = time.Second

	// shutdownGrace is how long in-flight requests get to finish after
	// SIGTERM before the process exits anyway.
	shutdownGrace = 10 * time.Second
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	inventoryURL := flag.String("inventory-url", "", "base `URL` of the inventory service POST /order calls (default: this process's own listener), e.g. http://localhost:8080 to reach it by name")
	inventoryTLS := flag.Bool("inventory-tls", false, "also serve the API over HTTPS on a second loopback port (self-signed certificate) and make POST /order call the inventory there, as between services behind an internal CA")
	flag.Parse()
	if *inventoryURL != "" && *inventoryTLS {
		fmt.Fprintln(os.Stderr, "-inventory-url and -inventory-tls both choose where the inventory is; give one")
		os.Exit(2)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *inventoryURL, *inventoryTLS, logger); err != nil {
		logger.Error("server failed", "err", err)
		os.Exit(1)
	}
}

// run serves on addr until SIGINT or SIGTERM, then shuts down gracefully.
// Orders reach the inventory at inventoryURL, or on this listener when it
// is empty. With inventoryTLS, the same handlers are also served over HTTPS
// on a loopback port of their own, and orders reach the inventory there.
func run(addr, inventoryURL string, inventoryTLS bool, logger *slog.Logger) error {
	enableContentionProfiling()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Listen before building anything else: with "-addr 127.0.0.1:0" the
	// port is only known now, and the inventory client needs it.
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}

	listeners := []net.Listener{listener}
	products := catalog.Generate(catalog.DefaultSize, catalog.DefaultSeed)
	if inventoryURL == "" {
		inventoryURL = selfURL(listener.Addr())
	}
	inventoryClient := inventory.NewClient(inventoryURL, inventoryTimeout)
	if inventoryTLS {
		serverTLS, roots, err := selfSignedTLS(time.Now())
		if err != nil {
			return fmt.Errorf("inventory TLS certificate: %w", err)
		}
		tlsListener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		listeners = append(listeners, tls.NewListener(tlsListener, serverTLS))
		inventoryClient = inventory.NewTLSClient("https://"+tlsListener.Addr().String(), inventoryTimeout, roots)
	}
	defer inventoryClient.CloseIdleConnections()

	mux := http.NewServeMux()
	httpapi.New(products, inventory.NewStock(products), inventoryClient, logger).Register(mux)
	registerPprof(mux)

	server := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// No WriteTimeout: /debug/pprof/profile?seconds=N legitimately
		// writes for N seconds.
	}
	serveErr := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { serveErr <- server.Serve(l) }()
		logger.Info("listening", "addr", l.Addr().String(), "products", products.Len())
	}

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	stop() // restore default signal handling: a second Ctrl-C kills at once

	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	for range listeners {
		if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	logger.Info("stopped")
	return nil
}

// enableContentionProfiling turns on the mutex and block profiles. Both are
// off by default, and /debug/pprof/mutex and /debug/pprof/block stay empty
// until a rate is set. The rates below sample about one in ten contention
// events and one blocking event per 10µs spent blocked, which is cheap
// enough to leave on in production.
func enableContentionProfiling() {
	runtime.SetMutexProfileFraction(10)
	runtime.SetBlockProfileRate(10000)
}

// registerPprof serves the runtime profiles under /debug/pprof/ on mux.
//
// Importing net/http/pprof also registers these handlers on
// http.DefaultServeMux, but this server does not use DefaultServeMux, so
// they are wired explicitly. pprof.Index also serves the named profiles
// (allocs, heap, goroutine, mutex, block, threadcreate).
func registerPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// selfURL returns the base URL under which this process reaches its own
// listener. A listener on all interfaces (":8080") reports an unspecified
// IP, which is not something to dial, so loopback is used instead.
func selfURL(addr net.Addr) string {
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + host
}
