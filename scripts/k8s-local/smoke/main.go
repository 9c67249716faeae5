// Command smoke is the workload of smoke.sh: a tiny HTTP server (`smoke
// serve`) that says which pod answered and can burn CPU on request, so the
// cluster's CPU limit shows up as throttling, and a client (`smoke get URL`)
// for a Job that checks a Service from inside the cluster.
package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "get" {
		os.Exit(get(os.Args[2]))
	}
	host, _ := os.Hostname()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		log.Printf("%s %s from %s", r.Method, r.URL, r.RemoteAddr)
		fmt.Fprintf(w, "hello from %s\n", host)
	})
	// /burn?ms=N spins for N ms of CPU time, to provoke CFS throttling.
	http.HandleFunc("/burn", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
		n := 0
		for time.Now().Before(deadline) {
			n++
		}
		fmt.Fprintf(w, "burned %d ms (%d loops) in %s\n", ms, n, host)
	})
	log.Printf("listening on :8080 as %s", host)
	log.Fatal(http.ListenAndServe(":8080", nil))
}

func get(url string) int {
	client := http.Client{Timeout: 5 * time.Second}
	for attempt := 1; ; attempt++ {
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Printf("GET %s: %s %s", url, resp.Status, body)
			if resp.StatusCode == http.StatusOK {
				return 0
			}
			return 1
		}
		if attempt == 10 {
			fmt.Printf("GET %s: %v\n", url, err)
			return 1
		}
		time.Sleep(time.Second)
	}
}
