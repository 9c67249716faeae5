package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/netns"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Where the load comes from (kubernetes.load_from). When the cluster's node
// is this machine (a local cluster) and perfgate reaches the pods' IPs,
// perfgate drives the pods itself, as the local and docker targets drive
// their services: its own generator sends the load to the pod's IP, and
// profiles and MemStats are read there directly (readiness stays the pod's
// Ready condition, from the API server). The in-cluster
// generator is reached through the API server's pod proxy, which costs
// every control call (a half's start and end, each profile read) a round
// trip through the API server, and the load then crosses kube-proxy's
// Service address: both sides alike, but more machinery on the same CPUs.
// kind's pods are routed to only inside its node container's network
// namespace: there perfgate makes its connections from that namespace
// (ReachPodsThrough, package netns), as root. Elsewhere (a remote
// cluster's nodes, kind without root) the in-cluster generator stays.

// decideLoadFrom says whether perfgate drives the run's pods from this
// machine, from the first pod of the run (the load generator's) and
// whether its cgroups are readable here (containerCgroup): "cluster" never
// does, "here" must, "auto" does when it can.
func (t *Target) decideLoadFrom(pod *corev1.Pod, onThisMachine bool) (bool, error) {
	mode := firstSet(t.settings.LoadFrom, "auto")
	if mode == "cluster" {
		return false, nil
	}
	why := reachesPod(pod, onThisMachine, t.token, t.podNetwork)
	if why != nil && mode == "here" {
		return false, &target.ConfigError{Err: fmt.Errorf("target %s: kubernetes.load_from is here, but %w; set kubernetes.load_from to auto or cluster to send the load from a generator in the cluster", t.name, why)}
	}
	// A local cluster that is not driven from here measures differently
	// (docs/targets.md): say why. kind without its node's network
	// namespace (not root) cannot reach its pods, which its confinement
	// already tells.
	switch {
	case why == nil || !onThisMachine:
	case t.name == "kubernetes":
		t.warnings = append(t.warnings, fmt.Sprintf("the cluster's node is this machine, but the load comes from the in-cluster generator: %v (kubernetes.load_from: auto; set it to here to make this an error)", why))
	case t.podNetwork != nil:
		// kind, whose config has no load_from to set.
		t.warnings = append(t.warnings, fmt.Sprintf("the cluster's node is this machine, but the load comes from the in-cluster generator: %v", why))
	}
	return why == nil, nil
}

// reachesPod says why perfgate cannot drive the run's pods from this
// machine (nil when it can), from the load generator's pod: its cgroup
// must be readable here (onThisMachine), which puts its node on this
// machine, and the run's generator must answer at the pod's IP from here
// (from network namespace ns when set) as only it does.
// A connection alone would not do: without a route to the cluster's pod
// network the address leaves by the default route, and another machine
// may own it. So the first call, without the run's token, must be refused
// with the generator's own words, and only then is the token sent: this
// tells the generator from a machine that owns the address by accident,
// not from one built to pass for it (the token only drives this run's
// generator at this run's Services, within its limits).
func reachesPod(pod *corev1.Pod, onThisMachine bool, token string, ns *netns.Namespace) error {
	if !onThisMachine {
		return errors.New("the cluster's node is not this machine (the pods' cgroups are not readable here)")
	}
	if pod.Status.PodIP == "" {
		return fmt.Errorf("pod %s has no IP", pod.Name)
	}
	transport := &http.Transport{DisableKeepAlives: true}
	if ns != nil {
		transport.DialContext = ns.Dial
	}
	if err := answersAsTheGenerator("http://"+net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(loadgenPort)), token, transport); err != nil {
		return fmt.Errorf("pod %s at %s: %w", pod.Name, pod.Status.PodIP, err)
	}
	return nil
}

// answersAsTheGenerator says why what answers at server is not the run's
// load generator (nil when it is), sending the token only to an address
// that refused a call without it in the generator's words.
func answersAsTheGenerator(server, token string, transport *http.Transport) error {
	url := server + "/generators/perfgate-reach-check"
	client := &http.Client{Timeout: time.Second, Transport: transport}
	for _, withToken := range []bool{false, true} {
		req, err := http.NewRequest(http.MethodDelete, url, nil)
		if err != nil {
			return err
		}
		want := http.StatusUnauthorized
		if withToken {
			req.Header.Set(loadgen.TokenHeader, token)
			want = http.StatusNoContent
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("this machine does not reach the pods' IPs (%w)", err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != want || (!withToken && !strings.Contains(string(body), loadgen.RefusalWords)) {
			return fmt.Errorf("what answers there from this machine is not the run's load generator (DELETE %s: %s)", url, resp.Status)
		}
	}
	return nil
}

// drivenFromHere is a service pod perfgate drives from this machine: it
// is attacked, probed and profiled at the pod's IP, with perfgate's own
// generator (it is neither target.RemoteLoad nor target.Proxied).
type drivenFromHere struct {
	in  *instance
	url string
}

// fromHere wraps i for perfgate's own generator, at its pod's IP, reached
// from the target's pod network namespace when it has one.
func fromHere(i *instance) target.Instance {
	d := &drivenFromHere{in: i, url: "http://" + net.JoinHostPort(i.pod.Status.PodIP, strconv.Itoa(servicePort))}
	if i.t.podNetwork != nil {
		return &drivenThroughNamespace{drivenFromHere: d, ns: i.t.podNetwork}
	}
	return d
}

// drivenThroughNamespace is a pod driven from here whose IP only another
// network namespace routes to (kind's node): perfgate's connections to it
// are made there (target.Dialed).
type drivenThroughNamespace struct {
	*drivenFromHere
	ns *netns.Namespace
}

func (d *drivenThroughNamespace) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	return d.ns.Dial(ctx, network, address)
}

func (d *drivenFromHere) BaseURL() string                    { return d.url }
func (d *drivenFromHere) Counters() (target.Counters, error) { return d.in.Counters() }
func (d *drivenFromHere) Exited() <-chan struct{}            { return d.in.Exited() }
func (d *drivenFromHere) Stop() target.Exit                  { return d.in.Stop() }
func (d *drivenFromHere) NodeCPUs() int                      { return d.in.NodeCPUs() }
