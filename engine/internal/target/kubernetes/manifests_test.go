package kubernetes

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
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
	return loadgenSpec{Run: "perfgate-0a1b2c3d", Namespace: "perfgate-0a1b2c3d", Image: "perfgate/load-generator:perfgate-0a1b2c3d-77e0aa12bc34",
		Targets: []string{"10.96.14.7:80"}}
}

// exampleToken stands for the run's token, which NewToken draws at random.
const exampleToken = "5f0c3e9a8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19"

// TestManifestsMatchGolden pins the generated objects; go test -update
// rewrites testdata/*.yaml after an intended change.
func TestManifestsMatchGolden(t *testing.T) {
	for name, object := range map[string]any{
		"deployment.yaml":            exampleService().Deployment(),
		"service.yaml":               runService("perfgate-0a1b2c3d", "perfgate-0a1b2c3d", 0),
		"service-b.yaml":             runService("perfgate-0a1b2c3d", "perfgate-0a1b2c3d", 1),
		"job.yaml":                   exampleLoadgen().Job(),
		"secret.yaml":                exampleLoadgen().Secret(exampleToken),
		"namespace.yaml":             namespace("perfgate-0a1b2c3d"),
		"networkpolicy-run.yaml":     networkPolicies("perfgate-0a1b2c3d", "perfgate-0a1b2c3d")[0],
		"networkpolicy-control.yaml": networkPolicies("perfgate-0a1b2c3d", "perfgate-0a1b2c3d")[1],
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

// TestLoadGeneratorGetsItsTokenFromASecretAndItsTargetFromTheRun checks
// the Job: the token comes from the run's Secret by reference, never as a
// value in the Job's spec, and the only target is the run's Service.
func TestLoadGeneratorGetsItsTokenFromASecretAndItsTargetFromTheRun(t *testing.T) {
	l := exampleLoadgen()
	secret, job := l.Secret(exampleToken), l.Job()
	if string(secret.Data[tokenKey]) != exampleToken || secret.Labels[LabelRun] != l.Run || secret.Namespace != l.Namespace {
		t.Errorf("secret %+v does not hold the run's token under %q with the run's label", secret.ObjectMeta, tokenKey)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e
		if strings.Contains(e.Value, exampleToken) {
			t.Errorf("env %s holds the token as a plain value", e.Name)
		}
	}
	token := env[loadgen.TokenEnv]
	if token.Value != "" || token.ValueFrom == nil || token.ValueFrom.SecretKeyRef == nil ||
		token.ValueFrom.SecretKeyRef.Name != secret.Name || token.ValueFrom.SecretKeyRef.Key != tokenKey {
		t.Errorf("env %s is %+v, want a reference to key %q of Secret %s", loadgen.TokenEnv, token, tokenKey, secret.Name)
	}
	if got := env[loadgen.TargetsEnv].Value; got != "10.96.14.7:80" {
		t.Errorf("env %s is %q, want the run's Service 10.96.14.7:80", loadgen.TargetsEnv, got)
	}
}

// TestNetworkPoliciesAdmitOnlyTheRunAndTheControlPort checks what the
// policies admit: to the run's pods, only the run's pods; to the load
// generator, its control port from anywhere (the token guards it).
func TestNetworkPoliciesAdmitOnlyTheRunAndTheControlPort(t *testing.T) {
	run := "perfgate-0a1b2c3d"
	policies := networkPolicies(run, "shared")
	if len(policies) != 2 {
		t.Fatalf("%d policies, want 2", len(policies))
	}
	onlyRun, control := policies[0], policies[1]
	for _, p := range policies {
		if p.Namespace != "shared" || p.Labels[LabelRun] != run || len(p.Spec.PolicyTypes) != 1 || p.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
			t.Errorf("policy %s: namespace %q, labels %v, types %v; want the run's, Ingress", p.Name, p.Namespace, p.Labels, p.Spec.PolicyTypes)
		}
	}
	runPods := map[string]string{LabelRun: run}
	if !reflect.DeepEqual(onlyRun.Spec.PodSelector.MatchLabels, runPods) || len(onlyRun.Spec.Ingress) != 1 {
		t.Fatalf("%s selects %v with %d rules, want the run's pods and one rule", onlyRun.Name, onlyRun.Spec.PodSelector, len(onlyRun.Spec.Ingress))
	}
	rule := onlyRun.Spec.Ingress[0]
	if len(rule.Ports) != 0 || len(rule.From) != 1 || rule.From[0].PodSelector == nil || rule.From[0].NamespaceSelector != nil || rule.From[0].IPBlock != nil ||
		!reflect.DeepEqual(rule.From[0].PodSelector.MatchLabels, runPods) {
		t.Errorf("%s admits %+v, want only the run's pods of its own namespace", onlyRun.Name, rule)
	}
	generator := exampleLoadgen().Job().Spec.Template.Labels
	if !reflect.DeepEqual(control.Spec.PodSelector.MatchLabels, generator) || len(control.Spec.Ingress) != 1 {
		t.Fatalf("%s selects %v, want the load generator's pods %v", control.Name, control.Spec.PodSelector, generator)
	}
	rule = control.Spec.Ingress[0]
	if len(rule.Ports) != 1 || rule.Ports[0].Port.IntValue() != loadgenPort || *rule.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("%s admits ports %+v, want only TCP %d", control.Name, rule.Ports, loadgenPort)
	}
	var cidrs []string
	for _, f := range rule.From {
		if f.IPBlock == nil || f.PodSelector != nil || f.NamespaceSelector != nil || len(f.IPBlock.Except) != 0 {
			t.Errorf("%s admits %+v, want ip blocks only", control.Name, f)
			continue
		}
		cidrs = append(cidrs, f.IPBlock.CIDR)
	}
	if !reflect.DeepEqual(cidrs, []string{"0.0.0.0/0", "::/0"}) {
		t.Errorf("%s admits %v, want 0.0.0.0/0 and ::/0", control.Name, cidrs)
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
	for slot := range endpointSlots {
		if _, err := c.clientset.CoreV1().Services("default").Create(ctx, runService(s.Run, "default", slot), dry); err != nil {
			t.Errorf("service of slot %d: %v", slot, err)
		}
	}
	if _, err := c.clientset.CoreV1().Secrets("default").Create(ctx, l.Secret(exampleToken), dry); err != nil {
		t.Errorf("secret: %v", err)
	}
	if _, err := c.clientset.BatchV1().Jobs("default").Create(ctx, l.Job(), dry); err != nil {
		t.Errorf("job: %v", err)
	}
	for _, p := range networkPolicies(s.Run, "default") {
		if _, err := c.clientset.NetworkingV1().NetworkPolicies("default").Create(ctx, p, dry); err != nil {
			t.Errorf("network policy %s: %v", p.Name, err)
		}
	}
}

// requireCluster connects to the cluster of KUBECONFIG; without one it
// skips, unless PERFGATE_REQUIRE_KUBERNETES=1 (scripts/test.sh after
// starting scripts/k8s-local), where it fails.
func requireCluster(t *testing.T) *cluster {
	t.Helper()
	c, err := connect(context.Background(), config.Kubernetes{}, true)
	if err != nil {
		if os.Getenv("PERFGATE_REQUIRE_KUBERNETES") == "1" {
			t.Fatalf("PERFGATE_REQUIRE_KUBERNETES=1 but no cluster answers: %v", err)
		}
		t.Skipf("no Kubernetes cluster (KUBECONFIG=%q): %v", os.Getenv("KUBECONFIG"), err)
	}
	return c
}

// TestAServiceDrivenFromHereIsBoundToItsNode: a run driven from this
// machine binds its service pods to the node perfgate reaches (by node
// name, as a field), beside the run's other service pod; a run driven by
// the in-cluster generator has no node term.
func TestAServiceDrivenFromHereIsBoundToItsNode(t *testing.T) {
	bound := serviceSpec{Run: "run", Instance: 1, Namespace: "ns", Node: "node-a"}.Deployment().Spec.Template.Spec.Affinity
	terms := bound.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Key != "metadata.name" ||
		terms[0].MatchFields[0].Operator != corev1.NodeSelectorOpIn || len(terms[0].MatchFields[0].Values) != 1 || terms[0].MatchFields[0].Values[0] != "node-a" {
		t.Errorf("node terms %+v, want metadata.name In [node-a]", terms)
	}
	if bound.PodAffinity == nil {
		t.Error("a pod bound to its node lost its affinity to the run's other service pod")
	}
	if free := (serviceSpec{Run: "run", Instance: 1, Namespace: "ns"}).Deployment().Spec.Template.Spec.Affinity; free.NodeAffinity != nil {
		t.Errorf("a pod of the in-cluster generator's run is bound to a node: %+v", free.NodeAffinity)
	}
}
