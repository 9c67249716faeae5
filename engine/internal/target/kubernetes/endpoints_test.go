package kubernetes

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// TestEndpointsServeTwoInstancesAtOnce takes the run's Services as a duet
// does: two instances get two different ones, a third is refused with the
// limit named, and a stopped instance's Service goes to the next.
func TestEndpointsServeTwoInstancesAtOnce(t *testing.T) {
	tg := &Target{run: "perfgate-0a1b2c3d"}
	for slot := range endpointSlots {
		tg.endpoints = append(tg.endpoints, &endpoint{name: endpointName(tg.run, slot), url: fmt.Sprintf("http://10.96.0.%d:80", slot+1)})
	}
	base, head, third, next := &instance{t: tg}, &instance{t: tg}, &instance{t: tg}, &instance{t: tg}
	eb, err := tg.takeEndpoint(base)
	if err != nil {
		t.Fatal(err)
	}
	eh, err := tg.takeEndpoint(head)
	if err != nil {
		t.Fatal(err)
	}
	if eb == eh || eb.name == eh.name || eb.url == eh.url {
		t.Fatalf("base and head share %+v and %+v, want a Service each", eb, eh)
	}
	if eb.name != "perfgate-0a1b2c3d" || eh.name != "perfgate-0a1b2c3d-b" {
		t.Errorf("Services %s and %s, want the run's name and <run>-b", eb.name, eh.name)
	}
	if _, err := tg.takeEndpoint(third); err == nil || !strings.Contains(err.Error(), "at most 2 at once") {
		t.Errorf("a third instance at once: %v, want a refusal naming the limit of 2", err)
	}
	tg.releaseEndpoint(base)
	en, err := tg.takeEndpoint(next)
	if err != nil || en != eb {
		t.Errorf("after base stopped, the next instance got %+v (%v), want base's Service %s", en, err, eb.name)
	}
}

// TestServicePodsMustShareANode checks the scheduling rule that keeps a
// duet's base and head on one node: a required pod affinity on the
// hostname to the run's service pods, which matches the pod's own labels
// (so a round's first pod is schedulable with no partner yet) and not the
// load generator's or another run's.
func TestServicePodsMustShareANode(t *testing.T) {
	s := exampleService()
	pod := s.Deployment().Spec.Template
	a := pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("affinity %+v, want one required pod affinity term", a)
	}
	term := a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("topology key %q, want kubernetes.io/hostname (one node)", term.TopologyKey)
	}
	selector := labels.SelectorFromSet(term.LabelSelector.MatchLabels)
	other := s
	other.Instance++
	otherRun := s
	otherRun.Run = "perfgate-ffffffff"
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"the pod itself", pod.Labels, true},
		{"the run's other service pod", other.labels(), true},
		{"the run's load generator", exampleLoadgen().Job().Spec.Template.Labels, false},
		{"another run's service pod", otherRun.labels(), false},
	} {
		if got := selector.Matches(labels.Set(c.labels)); got != c.want {
			t.Errorf("%s: matched %v, want %v", c.name, got, c.want)
		}
	}
}
