package kubernetes

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestAllStoppedWaitsForEveryContainerOfADeletedPod(t *testing.T) {
	deleting := metav1.Now()
	running := corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	stopped := corev1.ContainerStatus{State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137}}}
	pod := func(deleted bool, phase corev1.PodPhase, statuses ...corev1.ContainerStatus) corev1.Pod {
		p := corev1.Pod{Status: corev1.PodStatus{Phase: phase, ContainerStatuses: statuses}}
		if deleted {
			p.DeletionTimestamp = &deleting
		}
		return p
	}
	for _, c := range []struct {
		name string
		pods []corev1.Pod
		want bool
	}{
		{"no pod left", nil, true},
		{"deleted, its container terminated", []corev1.Pod{pod(true, corev1.PodRunning, stopped)}, true},
		{"deleted, its container still running", []corev1.Pod{pod(true, corev1.PodRunning, running)}, false},
		{"deleted, one of two containers running", []corev1.Pod{pod(true, corev1.PodRunning, stopped, running)}, false},
		{"deleted before any container was reported", []corev1.Pod{pod(true, corev1.PodPending)}, false},
		{"terminated but not deleted: it would restart", []corev1.Pod{pod(false, corev1.PodRunning, stopped)}, false},
		{"succeeded as a whole", []corev1.Pod{pod(false, corev1.PodSucceeded, stopped)}, true},
		{"a second pod still running", []corev1.Pod{pod(true, corev1.PodRunning, stopped), pod(false, corev1.PodRunning, running)}, false},
	} {
		if got := allStopped(c.pods); got != c.want {
			t.Errorf("%s: allStopped = %v, want %v", c.name, got, c.want)
		}
	}
}
