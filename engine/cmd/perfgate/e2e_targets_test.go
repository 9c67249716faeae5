package main

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestSameNumbersOnEveryTarget gates the planted allocation regression on
// the local, docker and kubernetes targets: the same verdict, and
// allocations per request (a property of the code, not of where it runs)
// within 1% of the local target's. The windows are longer than the
// decisive experiment's: the profile requests perfgate makes during a
// window allocate too, about one allocation per request at 200 requests a
// window, which alone would be a 1% swing.
func TestSameNumbersOnEveryTarget(t *testing.T) {
	targettest.RequireDocker(t)
	requireKubernetes(t)
	head := regressedHead(t, "alloc-sprintf.patch")
	cfg := strings.Replace(strings.Replace(decisiveExperiment, "rate: 200", "rate: 400", 1), "duration: 1s", "duration: 2s", 1)
	cfg += "kubernetes:\n  image_load: " + imageLoad(t) + "\n"
	allocs := map[string][2]float64{}
	for _, tg := range []string{"local", "docker", "kubernetes"} {
		g := runGateCommand(t, writeConfig(t, cfg), exampleService(t), head, "--target", tg)
		if g.code != 1 || g.report == nil || g.report.Verdict != "regression" || metricOutcome(g.report, "allocs") != "regression" {
			t.Fatalf("%s: exit %d, want a regression on allocs", tg, g.code)
		}
		for _, m := range g.report.Metrics {
			if m.Name == "allocs" {
				allocs[tg] = [2]float64{m.Base, m.Head}
			}
		}
	}
	var summary []string
	for _, tg := range []string{"docker", "kubernetes"} {
		for i, side := range []string{"base", "head"} {
			l, o := allocs["local"][i], allocs[tg][i]
			if diff := math.Abs(o-l) / l; diff > 0.01 {
				t.Errorf("%s allocs/req: local %.2f, %s %.2f (%.1f%% apart, want within 1%%)", side, l, tg, o, 100*diff)
			}
		}
		summary = append(summary, fmt.Sprintf("%s %.2f → %.2f", tg, allocs[tg][0], allocs[tg][1]))
	}
	t.Logf("allocs/req base → head: local %.2f → %.2f, %s", allocs["local"][0], allocs["local"][1], strings.Join(summary, ", "))
	if l := dockerLeftovers(t); len(l) > 0 {
		t.Errorf("left in Docker: %v", l)
	}
	if left := clusterLeftovers(t); left != "" {
		t.Errorf("left in the cluster: %s", left)
	}
}
