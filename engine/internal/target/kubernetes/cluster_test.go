package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/image"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// testImageLoad is how images reach the test cluster's node:
// PERFGATE_TEST_IMAGE_LOAD (a JSON command array), else scripts/k8s-local.
func testImageLoad(t *testing.T) []string {
	if env := os.Getenv("PERFGATE_TEST_IMAGE_LOAD"); env != "" {
		var cmd []string
		if err := json.Unmarshal([]byte(env), &cmd); err != nil {
			t.Fatalf("PERFGATE_TEST_IMAGE_LOAD is not a JSON array: %v", err)
		}
		return cmd
	}
	script, _ := filepath.Abs("../../../../scripts/k8s-local/load-image.sh")
	return []string{"bash", script, "{archive}"}
}

// preparedTarget is a run prepared on the test cluster whose load comes
// from the in-cluster generator, the path of clusters perfgate cannot
// reach from its machine (load_from_here_test.go tests the other).
func preparedTarget(t *testing.T, limits cgroup.Limits) *Target {
	return preparedTargetLoadingFrom(t, limits, "cluster")
}

func preparedTargetLoadingFrom(t *testing.T, limits cgroup.Limits, loadFrom string) *Target {
	t.Helper()
	requireCluster(t)
	if err := image.CheckStatic(mustExecutable(t)); err != nil {
		t.Skipf("the load generator's image is this test binary, which must be static: run with CGO_ENABLED=0 (%v)", err)
	}
	tg := New("kubernetes", config.Kubernetes{ImageLoad: testImageLoad(t), LoadFrom: loadFrom}, limits, nil)
	if _, err := tg.Prepare(context.Background()); err != nil {
		tg.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func mustExecutable(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

func svcSpec(t *testing.T, mode string) target.Spec {
	return target.Spec{
		Binary:       targettest.BuildSvc(t),
		Args:         func(l config.Listen) []string { return []string{"-addr", l.Addr, "-mode", mode} },
		Env:          func(config.Listen) []string { return nil },
		Ready:        "/healthz",
		ReadyTimeout: 30 * time.Second,
		LogDir:       t.TempDir(),
	}
}

// TestServiceOverItsMemoryLimitIsOOMKilled makes the service allocate 64
// MiB under a 24 MiB limit: the kubelet reports OOMKilled, and the target
// says so with exit code 137.
func TestServiceOverItsMemoryLimitIsOOMKilled(t *testing.T) {
	tg := preparedTarget(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 24 << 20})
	inst, err := tg.Start(context.Background(), svcSpec(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	p := inst.(target.Proxied)
	if resp, err := p.ControlClient().Get(p.ControlURL() + "/hog"); err == nil {
		resp.Body.Close()
	}
	select {
	case <-inst.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the pod outlived 64 MiB of allocations under a 24 MiB limit")
	}
	exit := inst.Stop()
	if !exit.OOMKilled || !exit.ExitedOnItsOwn || exit.Code != 137 {
		t.Errorf("exit %+v, want OOM-killed on its own with code 137", exit)
	}
}

// TestServicePodIsGuaranteedAndReachedOnlyInsideTheCluster checks the
// running pod: Guaranteed QoS, GOMAXPROCS and GOMEMLIMIT from the limits,
// the cgroup's quota, and a ClusterIP Service (nothing exposed outside).
func TestServicePodIsGuaranteedAndReachedOnlyInsideTheCluster(t *testing.T) {
	tg := preparedTarget(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	inst, err := tg.Start(context.Background(), svcSpec(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	i := inst.(*instance)
	pod, err := tg.cluster.clientset.CoreV1().Pods(i.pod.Namespace).Get(context.Background(), i.pod.Name, metav1.GetOptions{})
	if err != nil || pod.Status.QOSClass != "Guaranteed" {
		t.Fatalf("pod QoS %v (%v), want Guaranteed", pod.Status.QOSClass, err)
	}
	env := map[string]string{}
	for _, e := range pod.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["GOMAXPROCS"] != "1" || env["GOMEMLIMIT"] != "60397974" {
		t.Errorf("env %v, want GOMAXPROCS 1 and GOMEMLIMIT 90%% of 64 MiB", env)
	}
	svc, err := tg.cluster.clientset.CoreV1().Services(i.pod.Namespace).Get(context.Background(), tg.run, metav1.GetOptions{})
	if err != nil || svc.Spec.Type != "ClusterIP" || inst.BaseURL() != "http://"+svc.Spec.ClusterIP+":80" || svc.Spec.Selector[labelInstance] != strconv.Itoa(i.spec.Instance) {
		t.Errorf("service %+v (%v), base URL %s: want the run's ClusterIP selecting instance %d", svc.Spec, err, inst.BaseURL(), i.spec.Instance)
	}
	resp, err := i.ControlClient().Get(i.ControlURL() + "/gomaxprocs")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the API server's pod proxy: %v %v", resp, err)
	}
	resp.Body.Close()
	counters, err := inst.Counters()
	if err != nil || counters.Cgroup == nil || counters.Cgroup.CPUUsageNanos == 0 {
		t.Errorf("counters %+v (%v)", counters, err)
	}
	if c, ok := i.counters.(*cgroupCounters); ok {
		if limits, err := c.group.Limits(); err != nil || limits.CPUMillicores != 500 || limits.MemoryBytes != 64<<20 {
			t.Errorf("the container's cgroup has %+v (%v), want 500m and 64Mi", limits, err)
		}
	}
}

// TestRunIsGuarded checks a prepared run on the cluster: its NetworkPolicies
// select the run's pods, and the load generator, reached as perfgate
// reaches it (the API server's pod proxy), refuses a call without the
// run's token (401) and load aimed outside the run (403), and accepts the
// run's two Services (a duet's) with the token.
func TestRunIsGuarded(t *testing.T) {
	tg := preparedTarget(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	ctx := context.Background()
	policies, err := tg.cluster.clientset.NetworkingV1().NetworkPolicies(tg.namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelRun + "=" + tg.run})
	if err != nil || len(policies.Items) != 2 {
		t.Fatalf("the run's NetworkPolicies: %v (%v), want 2", policies, err)
	}
	for _, p := range policies.Items {
		if p.Spec.PodSelector.MatchLabels[LabelRun] != tg.run {
			t.Errorf("NetworkPolicy %s selects %v, want the run's pods", p.Name, p.Spec.PodSelector)
		}
	}
	job, err := tg.cluster.clientset.BatchV1().Jobs(tg.namespace).Get(ctx, tg.run+"-load", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if strings.Contains(e.Value, tg.token) {
			t.Errorf("the Job's env %s holds the token", e.Name)
		}
	}

	httpClient, err := rest.HTTPClientFor(tg.cluster.rest)
	if err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s:%d/proxy", strings.TrimRight(tg.cluster.rest.Host, "/"), tg.namespace, tg.loadgenPod, loadgenPort)
	get := []load.Request{{Method: "GET", Path: "/"}}
	for _, c := range []struct {
		name, token, url string
		want             string
	}{
		{"no token", "", tg.endpoints[0].url, "401"},
		{"a wrong token", strings.Repeat("0", len(tg.token)), tg.endpoints[0].url, "401"},
		{"the API server", tg.token, "http://" + strings.TrimPrefix(strings.TrimPrefix(tg.cluster.rest.Host, "https://"), "http://"), "403"},
	} {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		gen, err := loadgen.Create(ctx, server, httpClient, c.token, loadgen.NewGenerator{URL: c.url, Rate: 10, Timeout: time.Second, Requests: get})
		cancel()
		if err == nil {
			gen.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	gen, err := loadgen.Create(ctx, server, httpClient, tg.token, loadgen.NewGenerator{URL: tg.endpoints[0].url, DuetURL: tg.endpoints[1].url, Rate: 10, Timeout: time.Second, Requests: get})
	if err != nil {
		t.Fatalf("the run's two Services with the token: %v", err)
	}
	gen.Close()
}

// TestStopEndsAtTheContainerAndStartWaitsForThePod: Stop returns once the
// service's container has stopped, and the run's next start waits until
// the stopped pod is gone (the scheduler counts its requests until then).
func TestStopEndsAtTheContainerAndStartWaitsForThePod(t *testing.T) {
	tg := preparedTarget(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	ctx := context.Background()
	inst, err := tg.Start(ctx, svcSpec(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	first := inst.(*instance)
	inst.Stop()
	pods := tg.cluster.clientset.CoreV1().Pods(tg.namespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(first.spec.labels())})
	if err != nil {
		t.Fatal(err)
	}
	if !allStopped(list.Items) {
		t.Fatalf("Stop returned while a container of its pod could still run: %+v", list.Items)
	}
	// What Start waits for before it creates a Deployment: the stopped
	// pod's removal, which comes 0.6-0.9 s after Stop returned.
	if err := tg.waitForLeavingPods(ctx); err != nil {
		t.Fatal(err)
	}
	list, err = pods.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(first.spec.labels())})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("waitForLeavingPods returned while the stopped pod was still there: %d pods (%v)", len(list.Items), err)
	}
	next, err := tg.Start(ctx, svcSpec(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	defer next.Stop()
	list, err = pods.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(first.spec.labels())})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("the next start went ahead while the stopped pod was still there: %d pods (%v)", len(list.Items), err)
	}
}
