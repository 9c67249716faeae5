// A chi router in an internal package, the port from $PORT, pprof mounted
// with chi's profiler middleware.
package main

import (
	"net/http"
	"os"

	"example.com/routerenv/internal/api"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "3000"
	}
	srv := &http.Server{Addr: ":" + port, Handler: api.Router()}
	if err := srv.ListenAndServe(); err != nil {
		panic(err)
	}
}
