package kubernetes

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/load/loadtest"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/netns"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestLoadFromAClusterOnAnotherMachine decides where the load comes from
// for a pod whose cgroup is not on this machine: auto falls back to the
// in-cluster generator, cluster always uses it, and here fails with an
// error that names the field, the value and the fix.
func TestLoadFromAClusterOnAnotherMachine(t *testing.T) {
	elsewhere := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "loadgen"},
		Status: corev1.PodStatus{PodIP: "10.244.0.9", ContainerStatuses: []corev1.ContainerStatus{
			{ContainerID: "containerd://0000000000000000000000000000000000000000000000000000000000000000"},
		}},
	}
	for _, mode := range []string{"", "auto", "cluster"} {
		tg := New("kubernetes", config.Kubernetes{LoadFrom: mode}, cgroup.Limits{}, nil)
		if here, err := tg.decideLoadFrom(elsewhere, onThisMachine(elsewhere)); here || err != nil {
			t.Errorf("load_from %q: from here %v (%v), want the in-cluster generator", mode, here, err)
		}
	}
	tg := New("kubernetes", config.Kubernetes{LoadFrom: "here"}, cgroup.Limits{}, nil)
	here, err := tg.decideLoadFrom(elsewhere, onThisMachine(elsewhere))
	var ce *target.ConfigError
	if here || !errors.As(err, &ce) || !strings.Contains(err.Error(), "kubernetes.load_from is here, but the cluster's node is not this machine") || !strings.Contains(err.Error(), "set kubernetes.load_from to auto or cluster") {
		t.Errorf("load_from here: from here %v, error %v; want a configuration error naming the field, why and the fix", here, err)
	}
}

// TestAPodThatDoesNotAnswerFromHereIsWarnedAbout: on this machine, a pod
// whose IP nothing answers at (TEST-NET-1) leaves the load to the
// in-cluster generator with a warning saying why, which names
// kubernetes.load_from for the kubernetes target and not for kind, whose
// config has no such key (kind reaches its pods from its node's network
// namespace: here this machine's own).
func TestAPodThatDoesNotAnswerFromHereIsWarnedAbout(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gen"}, Status: corev1.PodStatus{PodIP: "192.0.2.1"}}
	ns, err := netns.Open("/proc/self/ns/net", "this machine's network namespace")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	for _, name := range []string{"kubernetes", "kind"} {
		tg := New(name, config.Kubernetes{}, cgroup.Limits{}, nil)
		if name == "kind" {
			tg.ReachPodsThrough(ns)
		}
		here, err := tg.decideLoadFrom(pod, true)
		if here || err != nil || len(tg.warnings) != 1 {
			t.Fatalf("%s: from here %v (%v), warnings %q; want the in-cluster generator and one warning", name, here, err, tg.warnings)
		}
		w := tg.warnings[0]
		if !strings.Contains(w, "the load comes from the in-cluster generator") || !strings.Contains(w, "pod gen at 192.0.2.1") {
			t.Errorf("%s: warning %q; want it to say where the load comes from and which pod did not answer", name, w)
		}
		if names := strings.Contains(w, "kubernetes.load_from"); names != (name == "kubernetes") {
			t.Errorf("%s: warning %q names kubernetes.load_from: %v", name, w, names)
		}
	}
}

// TestALocalClusterIsDrivenFromHere prepares a run that must drive its
// pods from this machine (the local test cluster's node is this machine):
// an instance is attacked, probed and profiled at its pod's IP by
// perfgate's own generator, every request is answered and counted by the
// pod's own cgroup, and stopping it frees its Service slot.
func TestALocalClusterIsDrivenFromHere(t *testing.T) {
	requireCluster(t)
	ownCPUs, err := affinity.Allowed()
	if err != nil {
		t.Fatal(err)
	}
	tg := preparedTargetLoadingFrom(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}, "here")
	if !tg.loadFromHere || !strings.Contains(tg.env.Confinement, "load and profile reads from this machine to the pods' IPs") {
		t.Fatalf("load from here %v, confinement %q; want the report to say the load comes from this machine", tg.loadFromHere, tg.env.Confinement)
	}
	inst, err := tg.Start(context.Background(), svcSpec(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	d, ok := inst.(*drivenFromHere)
	if !ok {
		t.Fatalf("instance is a %T, want one driven from here", inst)
	}
	if _, remote := inst.(target.RemoteLoad); remote {
		t.Error("an instance driven from here has a remote generator")
	}
	if _, proxied := inst.(target.Proxied); proxied {
		t.Error("an instance driven from here is read through the API server's proxy")
	}
	// Bound to the node driven from here, where the unused in-cluster
	// generator no longer runs.
	if na := d.in.pod.Spec.Affinity.NodeAffinity; na == nil || tg.node == "" || d.in.pod.Spec.NodeName != tg.node {
		t.Errorf("pod on node %q with node affinity %+v, want it bound to node %q", d.in.pod.Spec.NodeName, na, tg.node)
	}
	jobs, err := tg.cluster.clientset.BatchV1().Jobs(tg.namespace).List(context.Background(), metav1.ListOptions{LabelSelector: LabelRun + "=" + tg.run})
	if err != nil || len(jobs.Items) != 0 {
		t.Errorf("the run's Jobs: %d (%v), want the unused load generator's removed", len(jobs.Items), err)
	}
	// Placed as the local target places a service: the container's
	// process on the service's CPUs, perfgate on the others.
	if tg.placement.Service == nil || tg.placement.Generator == nil {
		t.Fatalf("placement %+v, want the pods placed apart from perfgate, the load generator", tg.placement)
	}
	if got := cpusAllowed(t, d.in.counters.(*cgroupCounters).pid); got != cgroup.FormatCPUs(tg.placement.Service) {
		t.Errorf("the container's process may run on CPUs %s, want the service's %s", got, cgroup.FormatCPUs(tg.placement.Service))
	}
	if got := cpusAllowed(t, os.Getpid()); got != cgroup.FormatCPUs(tg.placement.Generator) {
		t.Errorf("perfgate may run on CPUs %s, want the load generator's %s", got, cgroup.FormatCPUs(tg.placement.Generator))
	}
	if d.NodeCPUs() != len(tg.placement.Service) {
		t.Errorf("the duet's shared CPUs are %d, want the %d it was placed on", d.NodeCPUs(), len(tg.placement.Service))
	}
	u, err := url.Parse(inst.BaseURL())
	if err != nil || u.Hostname() != d.in.pod.Status.PodIP || net.ParseIP(u.Hostname()) == nil {
		t.Fatalf("base URL %s (%v), want the pod's IP %s", inst.BaseURL(), err, d.in.pod.Status.PodIP)
	}
	resp, err := http.Get(inst.BaseURL() + "/gomaxprocs")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the pod from here: %v %v", resp, err)
	}
	resp.Body.Close()

	before, err := inst.Counters()
	if err != nil || before.Cgroup == nil {
		t.Fatalf("counters %+v (%v), want the container's cgroup", before, err)
	}
	const rate = 50
	gen := load.New(inst.BaseURL(), rate, time.Second, []load.Request{{Method: "GET", Path: "/healthz"}})
	defer gen.Close()
	s, err := gen.Attack(context.Background(), load.Attack{Name: "here", Duration: 2 * time.Second})
	if err != nil || !loadtest.AllSent(s.Requests, 2*rate) || s.SuccessRatio != 1 {
		t.Fatalf("attack from here: %+v (%v), want %d requests all answered", s, err, 2*rate)
	}
	after, err := inst.Counters()
	if err != nil || after.Cgroup == nil || after.Cgroup.CPUUsageNanos <= before.Cgroup.CPUUsageNanos {
		t.Errorf("CPU %+v before, %+v after (%v), want more after the requests", before.Cgroup, after.Cgroup, err)
	}

	if exit := inst.Stop(); exit.ExitedOnItsOwn {
		t.Errorf("stop: %+v, want a pod that ran until stopped", exit)
	}
	for _, e := range tg.endpoints {
		if e.in != nil {
			t.Errorf("Service %s still held after the instance stopped", e.name)
		}
	}
	if err := tg.Close(); err != nil {
		t.Error(err)
	}
	if got, want := cpusAllowed(t, os.Getpid()), cgroup.FormatCPUs(ownCPUs); got != want {
		t.Errorf("perfgate may run on CPUs %s after Close, want its own %s back", got, want)
	}
}

// TestOnlyTheRunsGeneratorIsTakenForIt checks what decides that the pods'
// IPs answer from here: the run's real generator (loadgen.Serve) does;
// one holding another token, a server that accepts anything and one that
// refuses in other words do not, and the last two never see the token.
func TestOnlyTheRunsGeneratorIsTakenForIt(t *testing.T) {
	token, err := loadgen.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	served := make(chan error, 1)
	go func() {
		served <- loadgen.Serve(addr, time.Minute, loadgen.Guard{Token: token, Targets: []string{"127.0.0.1:1"}})
	}()
	generator := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(generator + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-served:
			t.Fatalf("the load generator did not start: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the load generator did not start")
		}
	}
	if err := answersAsTheGenerator(generator, token, &http.Transport{DisableKeepAlives: true}); err != nil {
		t.Errorf("the run's generator: %v, want it taken for the run's", err)
	}
	if err := answersAsTheGenerator(generator, strings.Repeat("0", len(token)), &http.Transport{DisableKeepAlives: true}); err == nil {
		t.Error("a generator of another token was taken for the run's")
	}
	for name, answer := range map[string]func(http.ResponseWriter){
		"accepts anything":        func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) },
		"refuses in other words":  func(w http.ResponseWriter) { http.Error(w, "unauthorized", http.StatusUnauthorized) },
		"answers as a web server": func(w http.ResponseWriter) { _, _ = w.Write([]byte("<html></html>")) },
	} {
		sawToken := false
		impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sawToken = sawToken || r.Header.Get(loadgen.TokenHeader) != ""
			answer(w)
		}))
		if err := answersAsTheGenerator(impostor.URL, token, &http.Transport{DisableKeepAlives: true}); err == nil || !strings.Contains(err.Error(), "is not the run's load generator") {
			t.Errorf("a server that %s: %v, want it refused as not the run's generator", name, err)
		}
		impostor.Close()
		if sawToken {
			t.Errorf("a server that %s was sent the run's token", name)
		}
	}
}

// cpusAllowed is the kernel's list of the CPUs process pid may run on.
func cpusAllowed(t *testing.T, pid int) string {
	t.Helper()
	cpus, err := affinity.OfTask(pid)
	if err != nil {
		t.Fatal(err)
	}
	return cgroup.FormatCPUs(cpus)
}

// onThisMachine is whether pod's cgroup is readable here.
func onThisMachine(pod *corev1.Pod) bool {
	_, err := containerProcess(pod)
	return err == nil
}
