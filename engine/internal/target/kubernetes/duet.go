package kubernetes

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// The target drives a duet's two services with one in-cluster generator;
// the kind target, which embeds it, does too.
var _ target.RemoteDuet = (*Target)(nil)

// The target builds and loads a duet's next images while the last
// round's pods stop (target.Preloads).
var _ target.Preloads = (*Target)(nil)

// Preload builds binary's image and gives it to the cluster (the work
// Start would do first), so that a round's start waits on the pods alone.
func (t *Target) Preload(ctx context.Context, binary string) error {
	_, err := t.images.ensure(ctx, "service", binary)
	return err
}

// DuetGenerator makes one generator on the run's in-cluster load
// generator for a duet's two instances (target.RemoteDuet): it sends every
// request to both instances' Services in load.BalancedOrder, at rate
// each, and waits until the generator reaches both. Both pods share a node
// (besideTheRunsServices).
func (t *Target) DuetGenerator(instances [2]target.Instance, rate float64, timeout time.Duration, requests []load.Request, swap bool) (load.DuetAttacker, error) {
	var in [2]*instance
	for k, inst := range instances {
		i, ok := inst.(*instance)
		if !ok || i.t != t {
			return nil, fmt.Errorf("target %s: a duet's generator needs two of this run's instances, and %d is a %T", t.name, k, inst)
		}
		in[k] = i
	}
	readyTime := max(in[0].readyTime, in[1].readyTime)
	gen, err := t.createGenerator(in[0].http, readyTime, loadgen.NewGenerator{
		URL: in[0].BaseURL(), DuetURL: in[1].BaseURL(), Swap: swap, Rate: rate, Timeout: timeout, Requests: requests,
		Ready: in[0].ready, ReadyTimeout: readyTime,
	})
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return gen, nil
}

// createGenerator makes spec's generator on the run's load generator,
// reached through the API server's pod proxy with client; the generator
// waits for readiness within readyTime.
func (t *Target) createGenerator(client *http.Client, readyTime time.Duration, spec loadgen.NewGenerator) (*loadgen.Remote, error) {
	server := fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s:%d/proxy", strings.TrimRight(t.cluster.rest.Host, "/"), t.namespace, t.loadgenPod, loadgenPort)
	// A duet's generator waits for each service in turn.
	services := 1
	if spec.DuetURL != "" {
		services = 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(services)*readyTime+30*time.Second)
	defer cancel()
	return loadgen.Create(ctx, server, client, t.token, spec)
}
