package kubernetes

import (
	"context"
	"fmt"
	"net"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// endpointSlots is how many services of a run may run at once: a duet's
// base and head. Each has a Service of its own (an endpoint slot) while it
// runs.
//
// A Service per slot rather than the pods' own IPs: the load generator's
// guard is fixed when its Job starts (loadgen.TargetsEnv), before any
// service pod exists, and a fresh pod per round gets a fresh IP; the
// Services' ClusterIPs exist from the start and stay for the whole run.
// Both sides of a duet go through the same kind of address, so kube-proxy's
// forwarding costs each the same.
const endpointSlots = 2

// endpoint is one of the run's Services and the instance it selects now
// (nil while free).
type endpoint struct {
	name string
	url  string
	in   *instance
}

// endpointName is slot's Service: the first is named as the run (as before
// runs had two), the second "<run>-b".
func endpointName(run string, slot int) string {
	if slot == 0 {
		return run
	}
	return fmt.Sprintf("%s-%c", run, 'a'+slot)
}

// createEndpoints creates the run's Services and returns the hosts
// (ClusterIP:port) the load generator may send load to.
func (t *Target) createEndpoints(ctx context.Context) ([]string, error) {
	var hosts []string
	for slot := range endpointSlots {
		svc, err := t.cluster.clientset.CoreV1().Services(t.namespace).Create(ctx, runService(t.run, t.namespace, slot), metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("target kubernetes: create the run's Service %s: %w", endpointName(t.run, slot), err)
		}
		host := net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(servicePort80))
		t.endpoints = append(t.endpoints, &endpoint{name: svc.Name, url: "http://" + host})
		hosts = append(hosts, host)
	}
	return hosts, nil
}

// takeEndpoint gives i a free Service, or fails when as many services run
// as there are slots.
func (t *Target) takeEndpoint(i *instance) (*endpoint, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.endpoints {
		if e.in == nil {
			e.in = i
			return e, nil
		}
	}
	return nil, fmt.Errorf("target kubernetes: %d services of this run are running already, and a run runs at most %d at once (a duet's base and head)", len(t.endpoints), endpointSlots)
}

// releaseEndpoint frees i's Service for the next instance.
func (t *Target) releaseEndpoint(i *instance) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.endpoints {
		if e.in == i {
			e.in = nil
		}
	}
}
