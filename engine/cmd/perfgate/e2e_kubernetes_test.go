package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These gates run against the cluster of KUBECONFIG: on this project's CI
// the real single-node cluster of scripts/k8s-local (test.sh starts it and
// sets PERFGATE_REQUIRE_KUBERNETES=1); on any other conformant cluster when
// PERFGATE_TEST_IMAGE_LOAD says how images reach its nodes, as a JSON
// command array with {archive} and {image}, e.g.
// ["kind","load","image-archive","{archive}","--name","dev"].

// requireKubernetes skips without a reachable cluster, or fails when
// PERFGATE_REQUIRE_KUBERNETES=1.
func requireKubernetes(t *testing.T) {
	t.Helper()
	err := exec.Command(kubectl(), "get", "--raw", "/readyz").Run()
	if err == nil {
		return
	}
	if os.Getenv("PERFGATE_REQUIRE_KUBERNETES") == "1" {
		t.Fatalf("PERFGATE_REQUIRE_KUBERNETES=1 but the cluster of KUBECONFIG=%q is not ready: %v", os.Getenv("KUBECONFIG"), err)
	}
	t.Skipf("no ready Kubernetes cluster (KUBECONFIG=%q); scripts/k8s-local/up.sh starts one", os.Getenv("KUBECONFIG"))
}

// kubectl is kubectl from PATH, or the one scripts/k8s-local builds.
func kubectl() string {
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p
	}
	return "/var/cache/perfgate-k8s/bin-v1.32.0/kubectl"
}

// imageLoad is the kubernetes.image_load of the test configs.
func imageLoad(t *testing.T) string {
	if cmd := os.Getenv("PERFGATE_TEST_IMAGE_LOAD"); cmd != "" {
		return cmd
	}
	data, _ := json.Marshal([]string{"bash", filepath.Join(repoRoot(t), "scripts", "k8s-local", "load-image.sh"), "{archive}"})
	return string(data)
}

// kubernetesConfig is a short experiment on the kubernetes target.
func kubernetesConfig(t *testing.T, base, cpu, memory string, rate int, load string) string {
	cfg := strings.Replace(base, `cpu: "1"`, "cpu: "+cpu, 1)
	cfg = strings.Replace(cfg, "memory: 256Mi", "memory: "+memory, 1)
	cfg = strings.Replace(cfg, "rate: 200", fmt.Sprintf("rate: %d", rate), 1)
	return writeConfig(t, cfg+"target: kubernetes\nkubernetes:\n  image_load: "+load+"\n")
}

// clusterLeftovers lists what perfgate created that is still in the
// cluster, by its managed-by label.
func clusterLeftovers(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := exec.Command(kubectl(), "get", "all,namespaces", "--all-namespaces", "-l", "app.kubernetes.io/managed-by=perfgate", "-o", "name").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl get: %v\n%s", err, out)
		}
		// A pod whose Deployment is gone may take a moment to vanish.
		if left := strings.TrimSpace(string(out)); left == "" || time.Now().After(deadline) {
			return left
		}
		time.Sleep(time.Second)
	}
}

func TestKubernetesGateThrottlesAt100m(t *testing.T) {
	requireKubernetes(t)
	// 700 req/s need about twice the 100m quota (~290 µs of CPU a
	// request in this cluster, 2026-11-26): throttled in every period,
	// overloaded and invalid, which the hint reads all the same. Nearer the
	// quota the share of throttled periods depends on the machine's speed
	// (at 250 req/s it was 0.10; at 400, when the service needed less, it
	// fell below a tenth). Both sides are the same code, and the plan is
	// the short experiment's (six pairs at alpha 0.1), not fewestRounds':
	// overloaded runs fail on either side by chance, and at alpha 0.5 a
	// head that failed in 3 of 3 rounds and a base in 1 of 3 was a
	// failures regression (p=0.25; CI, 2026-11-27). Here three invalid runs
	// in a row stop the gate, and three pairs cannot reach p < 0.125.
	// Sequential pairs, as calibrated, which also keeps experiment:
	// sequential tested on this target (TestSameNumbersOnEveryTarget gates
	// it as a duet).
	cfg := kubernetesConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi")+"experiment: sequential\n", "100m", "256Mi", 700, imageLoad(t))
	g := runGateCommand(t, cfg, exampleService(t), regressedHead(t, ""))
	if g.report == nil || g.report.Verdict == "regression" || g.report.Environment.Target != "kubernetes" {
		t.Fatalf("exit %d, want a kubernetes report and no regression", g.code)
	}
	if !hasHint(g.report, "cpu-throttling") {
		t.Errorf("no cpu-throttling hint: %+v", g.report.Hints)
	}
	if g.report.Experiment != "sequential" {
		t.Errorf("ran %s, want the sequential pairs asked for", g.report.Experiment)
	}
	if !strings.Contains(g.report.Environment.Confinement, "Guaranteed QoS") {
		t.Errorf("confinement %q", g.report.Environment.Confinement)
	}
	if left := clusterLeftovers(t); left != "" {
		t.Errorf("left in the cluster: %s", left)
	}
}

// TestKubernetesMissingImageFailsFast loads the load generator's image but
// not the service's: the service's pod cannot pull it, and the gate says
// so in seconds, with the pod's event, instead of at the rollout deadline.
func TestKubernetesMissingImageFailsFast(t *testing.T) {
	requireKubernetes(t)
	var load []string
	if err := json.Unmarshal([]byte(imageLoad(t)), &load); err != nil {
		t.Fatal(err)
	}
	// bash -c SCRIPT {image} LOAD...: $0 is the image, "$@" the command.
	onlyGenerator, _ := json.Marshal(append([]string{"bash", "-c", `case "$0" in */load-generator:*) exec "$@" ;; esac`, "{image}"}, load...))
	cfg := kubernetesConfig(t, fmt.Sprintf(shortExperiment, "300s", "256Mi"), `"1"`, "256Mi", 200, string(onlyGenerator))
	start := time.Now()
	g := runGateCommand(t, cfg, exampleService(t), exampleService(t))
	if g.report == nil || g.code == 0 || g.code == 1 {
		t.Fatalf("exit %d, want a failed start", g.code)
	}
	if took := time.Since(start); took > 2*time.Minute {
		t.Errorf("took %v: a missing image should fail long before the 5-minute readiness deadline", took)
	}
	out := g.stderr + g.report.Reason
	if !strings.Contains(out, "pulled") || !strings.Contains(out, "pod events:") {
		t.Errorf("the failure should say the image cannot be pulled and show the pod's events:\n%s", out)
	}
	if left := clusterLeftovers(t); left != "" {
		t.Errorf("left in the cluster: %s", left)
	}
}

// TestKubernetesCrashingServiceFailsFastWithItsLogs starts a service that
// exits at once on an unknown flag: the gate fails without waiting out the
// readiness deadline, and shows what the service printed.
func TestKubernetesCrashingServiceFailsFastWithItsLogs(t *testing.T) {
	requireKubernetes(t)
	base := strings.Replace(fmt.Sprintf(shortExperiment, "300s", "256Mi"), `"{addr}"]`, `"{addr}", "-no-such-flag"]`, 1)
	cfg := kubernetesConfig(t, base, `"1"`, "256Mi", 200, imageLoad(t))
	start := time.Now()
	g := runGateCommand(t, cfg, exampleService(t), exampleService(t))
	if g.report == nil || g.code == 0 || g.code == 1 {
		t.Fatalf("exit %d, want a failed start", g.code)
	}
	if took := time.Since(start); took > 2*time.Minute {
		t.Errorf("took %v: a crashing service should fail long before the 5-minute readiness deadline", took)
	}
	if out := g.stderr + g.report.Reason; !strings.Contains(out, "flag provided but not defined: -no-such-flag") {
		t.Errorf("the failure should carry the service's own message:\n%s", out)
	}
	if left := clusterLeftovers(t); left != "" {
		t.Errorf("left in the cluster: %s", left)
	}
}

func TestKubernetesWrongContextIsAConfigurationError(t *testing.T) {
	requireKubernetes(t)
	t.Setenv("PERFGATE_KUBE_CONTEXT", "no-such-context")
	cfg := kubernetesConfig(t, fmt.Sprintf(shortExperiment, "30s", "256Mi"), `"1"`, "256Mi", 200, imageLoad(t))
	g := runGateCommand(t, cfg, exampleService(t), exampleService(t))
	if g.code != 2 || !strings.Contains(g.stderr, `kubernetes.context: "no-such-context" is not a context`) {
		t.Errorf("exit %d, want 2 with a message naming the context", g.code)
	}
}
