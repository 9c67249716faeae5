// Command server runs the perfgate database example: an orders API on
// PostgreSQL through database/sql and the pure-Go pgx driver, with pprof on
// the same listener. It reads the database's address from DATABASE_URL, the
// way services on a platform are usually told where their database is.
package main

import (
	"context"
	"database/sql"
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
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"example.com/servicedb/internal/httpapi"
	"example.com/servicedb/internal/orders"
)

// shutdownGrace is how long in-flight requests get to finish after SIGTERM.
const shutdownGrace = 10 * time.Second

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		logger.Error("DATABASE_URL is not set; set it to the database's URL, like postgres://app@127.0.0.1:5432/app?sslmode=disable")
		os.Exit(2)
	}
	if err := run(*addr, dsn, logger); err != nil {
		logger.Error("server failed", "err", err)
		os.Exit(1)
	}
}

// run serves on addr until SIGINT or SIGTERM, then shuts down gracefully.
func run(addr, dsn string, logger *slog.Logger) error {
	enableContentionProfiling()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := openDB(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()

	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	httpapi.New(orders.NewStore(db), logger).Register(mux)
	registerPprof(mux)
	server := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// No WriteTimeout: /debug/pprof/profile?seconds=N writes for N seconds.
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- server.Serve(listener) }()
	logger.Info("listening", "addr", listener.Addr().String())

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	stop()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// openDB opens the connection pool and checks the database answers, so a
// wrong DATABASE_URL fails at start-up with the driver's message rather
// than as errors under load.
func openDB(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open DATABASE_URL: %w", err)
	}
	// The pool: enough open connections for a few cores' worth of
	// concurrent requests, and as many kept idle, so a request finds a
	// connection ready instead of dialling (and authenticating) one.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("reach the database of DATABASE_URL: %w", err)
	}
	return db, nil
}

// enableContentionProfiling turns on the mutex and block profiles, which
// stay empty until a rate is set.
func enableContentionProfiling() {
	runtime.SetMutexProfileFraction(10)
	runtime.SetBlockProfileRate(10000)
}

// registerPprof serves the runtime profiles under /debug/pprof/ on mux;
// the server does not use http.DefaultServeMux, where importing
// net/http/pprof would put them.
func registerPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
