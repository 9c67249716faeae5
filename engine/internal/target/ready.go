package target

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// WaitReady polls url+spec.Ready until it answers 2xx and races it against
// the service exiting, so a service that dies at start-up fails at once
// rather than at the deadline. exitedReason describes the exit.
func WaitReady(ctx context.Context, url string, spec Spec, exited <-chan struct{}, exitedReason func() string) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.NewTimer(spec.ReadyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	lastProblem := "no answer yet"
	for {
		select {
		case <-exited:
			return &StartError{Reason: fmt.Sprintf("the service exited during start-up (%s) before %s answered", exitedReason(), spec.Ready)}
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return &StartError{Reason: fmt.Sprintf(
				"the service did not become ready within %v: GET %s gave %s; check service.ready and service.args (it must listen on {addr}), or raise service.ready_timeout",
				spec.ReadyTimeout, spec.Ready, lastProblem)}
		case <-tick.C:
			resp, err := client.Get(url + spec.Ready)
			if err != nil {
				lastProblem = err.Error()
				continue
			}
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			lastProblem = resp.Status
		}
	}
}
