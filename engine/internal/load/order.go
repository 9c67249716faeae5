package load

import (
	"net/http"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// roundRobin is the request mix sent to one service in the configured
// order.
func roundRobin(baseURL string, requests []Request) []vegeta.Target {
	targets := make([]vegeta.Target, len(requests))
	for i, r := range requests {
		targets[i] = r.target(baseURL)
	}
	return targets
}

// BalancedOrder is the duet's cycle of 4·len(requests) indexes into
// (service, request): every request goes to both services back to back,
// and over the cycle each service goes first for every request type
// equally often. The order matters because the service that serves a
// request second finds its code and data warm in the shared caches: a
// plain A,B,A,B alternation gave the second one 2.4-4.6% less CPU per
// request (measured, ../shared/duet-prototype), the balanced cycle
// −0.04% ± 0.17%. Alternating who leads from one request type to the next
// also keeps any effect of the neighbouring request type balanced. swap
// makes service 1 lead the cycle.
func BalancedOrder(requests int, swap bool) [][2]int {
	var order [][2]int
	for cycle := range 2 {
		for r := range requests {
			first := (r + cycle) % 2
			if swap {
				first = 1 - first
			}
			order = append(order, [2]int{first, r}, [2]int{1 - first, r})
		}
	}
	return order
}

// balanced is BalancedOrder as vegeta targets.
func balanced(baseURLs [2]string, requests []Request, swap bool) []vegeta.Target {
	order := BalancedOrder(len(requests), swap)
	targets := make([]vegeta.Target, len(order))
	for i, o := range order {
		targets[i] = requests[o[1]].target(baseURLs[o[0]])
	}
	return targets
}

// target is the request addressed to the service at baseURL.
func (r Request) target(baseURL string) vegeta.Target {
	header := http.Header{}
	for k, v := range r.Headers {
		header.Set(k, v)
	}
	return vegeta.Target{Method: r.Method, URL: baseURL + r.Path, Body: []byte(r.Body), Header: header}
}
