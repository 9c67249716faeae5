package kubernetes

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// Where the load comes from (kubernetes.load_from). When the cluster's node
// is this machine (a local cluster) and perfgate reaches the pods' IPs,
// perfgate drives the pods itself, as the local and docker targets drive
// their services: its own generator sends the load to the pod's IP, and
// readiness, profiles and MemStats are read there directly. The in-cluster
// generator is reached through the API server's pod proxy, which costs
// every control call (a half's start and end, each profile read) a round
// trip through the API server, and the load then crosses kube-proxy's
// Service address: both sides alike, but more machinery on the same CPUs.
// Elsewhere (a remote cluster's nodes, kind's nodes without a route to
// their pods) the in-cluster generator stays.

// decideLoadFrom says whether perfgate drives the run's pods from this
// machine, from the first pod of the run (the load generator's): "cluster"
// never does, "here" must, "auto" does when it can.
func (t *Target) decideLoadFrom(pod *corev1.Pod) (bool, error) {
	mode := firstSet(t.settings.LoadFrom, "auto")
	if mode == "cluster" {
		return false, nil
	}
	why := reachesPod(pod)
	if why != nil && mode == "here" {
		return false, &target.ConfigError{Err: fmt.Errorf("target %s: kubernetes.load_from is here, but %w; set kubernetes.load_from to auto or cluster to send the load from a generator in the cluster", t.name, why)}
	}
	return why == nil, nil
}

// reachesPod says why perfgate cannot drive pod from this machine (nil
// when it can): the pod's cgroup must be readable here, which puts its
// node on this machine, and its IP must take a connection from here.
func reachesPod(pod *corev1.Pod) error {
	if !cgroupsVisible(pod) {
		return errors.New("the cluster's node is not this machine (the pods' cgroups are not readable here)")
	}
	if pod.Status.PodIP == "" {
		return fmt.Errorf("pod %s has no IP", pod.Name)
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(loadgenPort)), time.Second)
	if err != nil {
		return fmt.Errorf("this machine does not reach the pods' IPs (%w)", err)
	}
	return conn.Close()
}

// drivenFromHere is a service pod perfgate drives from this machine: it
// is attacked, probed and profiled at the pod's IP, with perfgate's own
// generator (it is neither target.RemoteLoad nor target.Proxied).
type drivenFromHere struct {
	in  *instance
	url string
}

// fromHere wraps i for perfgate's own generator, at its pod's IP.
func fromHere(i *instance) *drivenFromHere {
	return &drivenFromHere{in: i, url: "http://" + net.JoinHostPort(i.pod.Status.PodIP, strconv.Itoa(servicePort))}
}

func (d *drivenFromHere) BaseURL() string                    { return d.url }
func (d *drivenFromHere) Counters() (target.Counters, error) { return d.in.Counters() }
func (d *drivenFromHere) Exited() <-chan struct{}            { return d.in.Exited() }
func (d *drivenFromHere) Stop() target.Exit                  { return d.in.Stop() }
func (d *drivenFromHere) NodeCPUs() int                      { return d.in.NodeCPUs() }
