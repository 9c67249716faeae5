// Both addresses hard-coded: the service on :8080, pprof on localhost:6060.
package main

import (
	"log"
	"net/http"
	_ "net/http/pprof"
)

func main() {
	go func() {
		log.Println(http.ListenAndServe("localhost:6060", nil))
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/quote", func(w http.ResponseWriter, r *http.Request) {})
	log.Fatal(http.ListenAndServe(":8080", mux))
}
