package kubernetes

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/perfgate/perfgate/engine/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden manifests in testdata/")

func exampleService() serviceSpec {
	return serviceSpec{
		Run: "perfgate-0a1b2c3d", Instance: 3, Namespace: "perfgate-0a1b2c3d", Image: "perfgate/service:perfgate-0a1b2c3d-4f2a9c01d3e5",
		Args: []string{"-addr", "0.0.0.0:8080"}, Env: map[string]string{"GOMAXPROCS": "1", "GOMEMLIMIT": "241591910", "LOG_LEVEL": "warn"},
		CPUMilli: 500, MemoryBytes: 256 << 20, Ready: "/healthz",
	}
}

func exampleLoadgen() loadgenSpec {
	return loadgenSpec{Run: "perfgate-0a1b2c3d", Namespace: "perfgate-0a1b2c3d", Image: "perfgate/load-generator:perfgate-0a1b2c3d-77e0aa12bc34"}
}

// TestManifestsMatchGolden pins the generated objects; go test -update
// rewrites testdata/*.yaml after an intended change.
func TestManifestsMatchGolden(t *testing.T) {
	for name, object := range map[string]any{
		"deployment.yaml": exampleService().Deployment(),
		"service.yaml":    exampleService().Service(),
		"job.yaml":        exampleLoadgen().Job(),
		"namespace.yaml":  namespace("perfgate-0a1b2c3d"),
	} {
		got, err := yaml.Marshal(object)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
		}
	}
}

// TestDeploymentIsGuaranteedQoS checks the properties the measurement
// relies on, independent of the golden file's layout.
func TestDeploymentIsGuaranteedQoS(t *testing.T) {
	d := exampleService().Deployment()
	c := d.Spec.Template.Spec.Containers[0]
	if !c.Resources.Requests.Cpu().Equal(*c.Resources.Limits.Cpu()) || !c.Resources.Requests.Memory().Equal(*c.Resources.Limits.Memory()) {
		t.Errorf("requests %v != limits %v: the pod would not be Guaranteed QoS", c.Resources.Requests, c.Resources.Limits)
	}
	if c.Resources.Limits.Cpu().MilliValue() != 500 || c.Resources.Limits.Memory().Value() != 256<<20 {
		t.Errorf("limits %v, want 500m and 256Mi", c.Resources.Limits)
	}
	if *d.Spec.Replicas != 1 || c.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("replicas %d, readiness %v", *d.Spec.Replicas, c.ReadinessProbe)
	}
	if !metav1.HasLabel(d.ObjectMeta, LabelRun) || d.Labels[LabelManagedBy] != "perfgate" {
		t.Errorf("labels %v lack the run's", d.Labels)
	}
}

// TestManifestsPassServerSideDryRun sends every generated object to a real
// API server with dryRun=All, so its validation and admission (Pod
// Security included) accept what perfgate would create.
func TestManifestsPassServerSideDryRun(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	if _, err := c.clientset.CoreV1().Namespaces().Create(ctx, namespace("perfgate-0a1b2c3d"), dry); err != nil {
		t.Errorf("namespace: %v", err)
	}
	// The objects go to an existing namespace: a dry-run namespace does not
	// exist for the objects after it.
	s, l := exampleService(), exampleLoadgen()
	s.Namespace, l.Namespace = "default", "default"
	if _, err := c.clientset.AppsV1().Deployments("default").Create(ctx, s.Deployment(), dry); err != nil {
		t.Errorf("deployment: %v", err)
	}
	if _, err := c.clientset.CoreV1().Services("default").Create(ctx, s.Service(), dry); err != nil {
		t.Errorf("service: %v", err)
	}
	if _, err := c.clientset.BatchV1().Jobs("default").Create(ctx, l.Job(), dry); err != nil {
		t.Errorf("job: %v", err)
	}
}

// requireCluster connects to the cluster of KUBECONFIG; without one it
// skips, unless PERFGATE_REQUIRE_KUBERNETES=1 (scripts/test.sh after
// starting scripts/k8s-local), where it fails.
func requireCluster(t *testing.T) *cluster {
	t.Helper()
	c, err := connect(context.Background(), config.Kubernetes{})
	if err != nil {
		if os.Getenv("PERFGATE_REQUIRE_KUBERNETES") == "1" {
			t.Fatalf("PERFGATE_REQUIRE_KUBERNETES=1 but no cluster answers: %v", err)
		}
		t.Skipf("no Kubernetes cluster (KUBECONFIG=%q): %v", os.Getenv("KUBECONFIG"), err)
	}
	return c
}
