// The shape of many small services: handlers on http.DefaultServeMux, the
// address from a flag, pprof registered by a blank import.
package main

import (
	"flag"
	"log"
	"net/http"
	_ "net/http/pprof"
)

func main() {
	addr := flag.String("addr", ":8080", "host:port to listen on")
	flag.Parse()
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {})
	http.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {})
	http.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {})
	http.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
