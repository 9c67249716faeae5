package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// The kind target for real: a cluster perfgate creates with kind from
// PERFGATE_KIND_NODE_IMAGE, on the Docker engine of DOCKER_HOST. On this
// project's CI the image is built offline by scripts/kind/build.sh (no
// registry is in reach there) and test.sh sets PERFGATE_REQUIRE_KIND=1; on
// a machine where kind can pull its default image, set
// PERFGATE_KIND_NODE_IMAGE to kindest/node:<tag> to run it.

// requireKind returns the node image, or skips without kind, Docker or an
// image; with PERFGATE_REQUIRE_KIND=1 it fails instead of skipping.
func requireKind(t *testing.T) string {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("PERFGATE_REQUIRE_KIND") == "1" {
			t.Fatalf("PERFGATE_REQUIRE_KIND=1 but "+format, args...)
		}
		t.Skipf(format+"; scripts/kind/build.sh builds kind and a node image offline", args...)
	}
	image := os.Getenv("PERFGATE_KIND_NODE_IMAGE")
	if image == "" {
		missing("PERFGATE_KIND_NODE_IMAGE is not set")
	}
	if _, err := exec.LookPath("kind"); err != nil {
		missing("the kind command is not installed: %v", err)
	}
	if os.Getenv("PERFGATE_REQUIRE_KIND") == "1" {
		t.Setenv("PERFGATE_REQUIRE_DOCKER", "1")
	}
	targettest.RequireDocker(t)
	if out, err := exec.Command("docker", "image", "inspect", image).CombinedOutput(); err != nil {
		missing("the node image %s is not in the Docker engine: %v\n%s", image, err, out)
	}
	return image
}

// kindLeftovers lists the kind clusters and node containers perfgate left.
func kindLeftovers(t *testing.T) []string {
	t.Helper()
	var left []string
	out, err := exec.Command("kind", "get", "clusters").CombinedOutput()
	if err != nil {
		t.Fatalf("kind get clusters: %v\n%s", err, out)
	}
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "perfgate-") {
			left = append(left, "kind cluster "+name)
		}
	}
	out, err = exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster", "--format", "{{.Names}}").CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v\n%s", err, out)
	}
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "perfgate-") {
			left = append(left, "node container "+name)
		}
	}
	return left
}

// TestKindGateCatchesThePlantedRegression is the kind target end to end:
// perfgate creates its own cluster from the node image, loads the
// service's and the load generator's images into it, runs the gate under
// the configured limits, calls the planted allocation regression (+50%
// allocations per request, in every round), and deletes the cluster.
// Four rounds at alpha 0.5 (fewestRounds) decide a change that large. It
// runs as a duet, both pods on the one node at once: at 500m, two
// Guaranteed pods and the load generator fit a 2-CPU machine beside the
// control plane (at the default 1 CPU they do not, and the gate would fall
// back to sequential pairs).
func TestKindGateCatchesThePlantedRegression(t *testing.T) {
	image := requireKind(t)
	if left := kindLeftovers(t); len(left) > 0 {
		t.Logf("left before the test (the gate's sweep removes dead runs' clusters): %v", left)
	}
	cfg := fewestRounds(t, decisiveExperiment) + "resources: {cpu: 500m, memory: 256Mi}\nkind:\n  node_image: " + image + "\n"
	g := runGateCommand(t, writeConfig(t, cfg), exampleService(t), regressedHead(t, "alloc-sprintf.patch"), "--target", "kind")
	if g.code != 1 || g.report == nil || g.report.Verdict != "regression" || metricOutcome(g.report, "allocs") != "regression" {
		t.Fatalf("exit %d, want a regression on allocs", g.code)
	}
	if g.report.Experiment != "duet" {
		t.Errorf("the kind gate ran %s, want a duet (warnings: %v)", g.report.Experiment, g.report.Warnings)
	}
	if g.report.Environment.PrepareSeconds < 1 {
		t.Errorf("environment.prepare_seconds %.2f: creating the cluster takes more than a second", g.report.Environment.PrepareSeconds)
	}
	env := g.report.Environment
	// kind's pods are reachable only from the node container's network
	// namespace: as root perfgate drives them from there itself, otherwise
	// the in-cluster generator does.
	fromHere := strings.Contains(env.Confinement, "from this machine to the pods' IPs")
	if root := os.Geteuid() == 0; fromHere != root {
		t.Errorf("confinement %q: load from this machine %v, as root %v: want perfgate to drive kind's pods from the node's network namespace exactly when it is root", env.Confinement, fromHere, root)
	}
	if env.Target != "kind" || !strings.Contains(env.Confinement, "kind cluster perfgate-") || !strings.Contains(env.Confinement, "Guaranteed QoS") {
		t.Errorf("target %q, confinement %q: want a Guaranteed pod in perfgate's own kind cluster", env.Target, env.Confinement)
	}
	checkPlaced(t, g.report)
	if left := kindLeftovers(t); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// checkPlaced checks a cluster gate whose node is this machine: as root,
// its service pods ran on CPUs of their own, apart from the load
// generator's; otherwise (a GitHub runner's user) the report says they
// shared them.
func checkPlaced(t *testing.T, r *report.Report) {
	t.Helper()
	env := r.Environment
	if os.Geteuid() != 0 {
		warnings := append(slices.Clone(r.Warnings), env.Warnings...)
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "share the node's CPUs with the load generator") }) {
			t.Errorf("%s as a user: warnings %q, want one saying the pods were not placed", env.Target, warnings)
		}
		return
	}
	if len(env.ServiceCPUs) == 0 || len(env.GeneratorCPUs) == 0 || !strings.Contains(env.Confinement, "the service containers on CPUs") {
		t.Errorf("%s: service CPUs %v, generator CPUs %v, confinement %q, warnings %q: want the pods placed apart from the load generator", env.Target, env.ServiceCPUs, env.GeneratorCPUs, env.Confinement, r.Warnings)
	}
}
