// Command pause is the pod sandbox ("infra") container of the local cluster:
// it holds the pod's namespaces open, reaps children it inherits, and exits
// on SIGTERM or SIGINT. Built static and packed FROM scratch by up.sh, so the
// cluster needs no registry for registry.k8s.io/pause.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			return
		}
		// With a shared PID namespace this process is PID 1: reap orphans.
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
