// Command svc is a tiny service with failure modes for the targets'
// tests: it can die at start-up, never become ready, or hog memory.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	mode := flag.String("mode", "ok", "ok | die | never-ready | hog | spawn")
	flag.Parse()
	switch *mode {
	case "die":
		fmt.Fprintln(os.Stderr, "fatal: cannot open database: connection refused")
		os.Exit(3)
	case "spawn":
		// A child that would outlive a careless kill of the parent.
		p, _ := os.StartProcess("/bin/sleep", []string{"sleep", "300"}, &os.ProcAttr{})
		fmt.Println("child", p.Pid)
	}
	var hoard [][]byte
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if *mode == "never-ready" {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("/gomaxprocs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, runtime.GOMAXPROCS(0))
	})
	http.HandleFunc("/hog", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 64; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			hoard = append(hoard, b)
			time.Sleep(time.Millisecond)
		}
		fmt.Fprintln(w, len(hoard))
	})
	fmt.Fprintln(os.Stderr, "listening on", *addr)
	if err := http.ListenAndServe(*addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
