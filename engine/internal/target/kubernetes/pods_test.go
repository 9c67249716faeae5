package kubernetes

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func waitingPod(reason, message string) *corev1.Pod {
	return &corev1.Pod{Status: corev1.PodStatus{
		Phase: corev1.PodPending,
		ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}},
		}},
	}}
}

func TestPodProblemSeparatesRetriedFromFinalReasons(t *testing.T) {
	problem, _, retried := podProblem(waitingPod("CreateContainerConfigError", "failed to sync secret cache: timed out waiting for the condition"))
	if !retried || !strings.Contains(problem, "failed to sync secret cache") {
		t.Errorf("a CreateContainerConfigError is one the kubelet retries: got %q, retried=%v", problem, retried)
	}
	problem, _, retried = podProblem(waitingPod("ErrImageNeverPull", "image is not present"))
	if retried || !strings.Contains(problem, "not on the node") {
		t.Errorf("an image that is not on the node is final: got %q, retried=%v", problem, retried)
	}
	if problem, _, _ := podProblem(waitingPod("ContainerCreating", "")); problem != "" {
		t.Errorf("ContainerCreating is progress, not a problem: got %q", problem)
	}
}

func TestRetriedProblemFailsOnlyOnceItHasLasted(t *testing.T) {
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var r retriedProblem
	if r.lasting("config error", true, start) {
		t.Fatal("a retried problem seen for the first time failed the run")
	}
	if r.lasting("config error", true, start.Add(retriedGrace-time.Second)) {
		t.Fatal("a retried problem failed the run before retriedGrace")
	}
	if !r.lasting("config error", true, start.Add(retriedGrace)) {
		t.Fatal("a retried problem that lasted retriedGrace did not fail the run")
	}

	// One that clears starts its grace again when it comes back.
	r = retriedProblem{}
	r.lasting("config error", true, start)
	r.lasting("", false, start.Add(20*time.Second))
	if r.lasting("config error", true, start.Add(retriedGrace+time.Second)) {
		t.Fatal("a retried problem that had cleared kept its old start")
	}

	if !(&retriedProblem{}).lasting("crash loop", false, start) {
		t.Fatal("a final problem did not fail the run at once")
	}
}
