// The service's own mux on one listener, pprof on http.DefaultServeMux on
// a second (admin) listener whose address is a flag.
package main

import (
	"flag"
	"log"
	"net/http"
	_ "net/http/pprof"
)

func main() {
	addr := flag.String("addr", ":8080", "API host:port")
	debugAddr := flag.String("debug-addr", "localhost:6060", "pprof host:port")
	flag.Parse()
	go func() {
		log.Println(http.ListenAndServe(*debugAddr, nil))
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /v1/things", func(w http.ResponseWriter, r *http.Request) {})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
