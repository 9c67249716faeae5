package kubernetes

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/image"
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

func preparedTarget(t *testing.T, limits cgroup.Limits) *Target {
	t.Helper()
	requireCluster(t)
	if err := image.CheckStatic(mustExecutable(t)); err != nil {
		t.Skipf("the load generator's image is this test binary, which must be static: run with CGO_ENABLED=0 (%v)", err)
	}
	tg := New("kubernetes", config.Kubernetes{ImageLoad: testImageLoad(t)}, limits, nil)
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
		Args:         func(addr string, port int) []string { return []string{"-addr", addr, "-mode", mode} },
		Env:          func(string, int) []string { return nil },
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
	svc, err := tg.cluster.clientset.CoreV1().Services(i.pod.Namespace).Get(context.Background(), i.spec.name(), metav1.GetOptions{})
	if err != nil || svc.Spec.Type != "ClusterIP" || !strings.HasPrefix(inst.BaseURL(), "http://"+svc.Spec.ClusterIP) {
		t.Errorf("service %+v (%v), base URL %s: want a ClusterIP", svc.Spec, err, inst.BaseURL())
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
