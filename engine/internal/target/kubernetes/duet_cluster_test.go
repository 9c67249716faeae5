package kubernetes

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/load/loadtest"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestDuetRunsBothInstancesOnOneNode runs a duet's two instances at once
// on the cluster: their pods share a node, each is selected by a Service
// of its own, and one in-cluster generator for both sends each the same
// number of requests, all answered, every one of them counted by its own
// pod's CPU. Stopping both frees the Services for the next round.
func TestDuetRunsBothInstancesOnOneNode(t *testing.T) {
	tg := preparedTarget(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	ctx := context.Background()
	var inst [2]target.Instance
	for k := range inst {
		var err error
		if inst[k], err = tg.Start(ctx, svcSpec(t, "ok")); err != nil {
			t.Fatal(err)
		}
		defer inst[k].Stop()
	}
	a, b := inst[0].(*instance), inst[1].(*instance)
	if a.pod.Spec.NodeName == "" || a.pod.Spec.NodeName != b.pod.Spec.NodeName {
		t.Errorf("pods on nodes %q and %q, want one node", a.pod.Spec.NodeName, b.pod.Spec.NodeName)
	}
	if a.BaseURL() == b.BaseURL() {
		t.Fatalf("both instances at %s, want a Service each", a.BaseURL())
	}
	// The node is this machine, so the run is placed: both pods on the
	// service's CPUs, the in-cluster generator and perfgate on the
	// others, and the duet's shared-CPU rule holds both pods' use against
	// the service's CPUs (target.OnNode).
	if tg.placement.Service == nil || tg.node != a.pod.Spec.NodeName {
		t.Fatalf("placement %+v on node %q, want the pods and the load generator placed on the pods' node %q", tg.placement, tg.node, a.pod.Spec.NodeName)
	}
	service, generator := cgroup.FormatCPUs(tg.placement.Service), cgroup.FormatCPUs(tg.placement.Generator)
	for _, i := range []*instance{a, b} {
		if got := cpusAllowed(t, i.counters.(*cgroupCounters).pid); !i.placed || got != service {
			t.Errorf("pod %s (placed %v) may run on CPUs %s, want the service's %s", i.pod.Name, i.placed, got, service)
		}
		if i.NodeCPUs() != len(tg.placement.Service) {
			t.Errorf("pod %s: NodeCPUs %d, want the %d CPUs it was placed on", i.pod.Name, i.NodeCPUs(), len(tg.placement.Service))
		}
	}
	if got := cpusAllowed(t, os.Getpid()); got != generator {
		t.Errorf("perfgate may run on CPUs %s, want the load generator's %s", got, generator)
	}
	loadgen, err := tg.cluster.clientset.CoreV1().Pods(tg.namespace).Get(ctx, tg.loadgenPod, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pid, _, err := containerCgroup(loadgen)
	if err != nil {
		t.Fatal(err)
	}
	if got := cpusAllowed(t, pid); got != generator {
		t.Errorf("the load generator's process may run on CPUs %s, want %s", got, generator)
	}
	for _, i := range []*instance{a, b} {
		svc, err := tg.cluster.clientset.CoreV1().Services(tg.namespace).Get(ctx, i.endpoint.name, metav1.GetOptions{})
		if err != nil || svc.Spec.Selector[labelInstance] != strconv.Itoa(i.spec.Instance) || i.BaseURL() != "http://"+svc.Spec.ClusterIP+":80" {
			t.Errorf("Service %s (%v) selects %v at %s, want instance %d at %s", i.endpoint.name, err, svc.Spec.Selector, svc.Spec.ClusterIP, i.spec.Instance, i.BaseURL())
		}
	}

	var before [2]target.Counters
	for k, i := range inst {
		var err error
		if before[k], err = i.Counters(); err != nil || before[k].Cgroup == nil {
			t.Fatalf("counters of instance %d: %+v (%v)", k, before[k], err)
		}
	}
	const rate = 50
	gen, err := tg.DuetGenerator(inst, rate, time.Second, []load.Request{{Method: "GET", Path: "/healthz"}, {Method: "GET", Path: "/gomaxprocs"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	var outs [2]bytes.Buffer
	summaries, err := gen.AttackAll(ctx, load.Attack{Name: "duet", Duration: 2 * time.Second, Outs: []io.Writer{&outs[0], &outs[1]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(summaries) != 2 {
		t.Fatalf("%d summaries, want one per instance", len(summaries))
	}
	for k, s := range summaries {
		if !loadtest.AllSent(s.Requests, 2*rate) || s.SuccessRatio != 1 || outs[k].Len() == 0 {
			t.Errorf("instance %d: %d requests, success %g, %d bytes of results; want %d all answered, with results", k, s.Requests, s.SuccessRatio, outs[k].Len(), 2*rate)
		}
	}
	// Each pod served its share: its own CPU counter grew. The counters
	// come from the container's cgroup, or from cAdvisor, which refreshes
	// every few seconds.
	deadline := time.Now().Add(30 * time.Second)
	for k, i := range inst {
		for {
			after, err := i.Counters()
			if err == nil && after.Cgroup != nil && after.Cgroup.CPUUsageNanos > before[k].Cgroup.CPUUsageNanos {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("instance %d: CPU %+v before, %+v after (%v), want more after its requests", k, before[k].Cgroup, after.Cgroup, err)
				break
			}
			time.Sleep(time.Second)
		}
	}

	for _, i := range inst {
		i.Stop()
	}
	for _, e := range tg.endpoints {
		if e.in != nil {
			t.Errorf("Service %s still held after both instances stopped", e.name)
		}
	}
}
