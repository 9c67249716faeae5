package kubernetes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func requesting(cpu, memory string, phase corev1.PodPhase) corev1.Pod {
	return corev1.Pod{
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		}}}}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// TestFreeCountsThePodsThatHaveNotFinished: a node of 2 CPUs running the
// load generator (250m) and a pending pod (500m) has 1250m left; a
// finished Job's pod takes nothing.
func TestFreeCountsThePodsThatHaveNotFinished(t *testing.T) {
	allocatable := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	left := free(allocatable, []corev1.Pod{
		requesting("250m", "128Mi", corev1.PodRunning),
		requesting("500m", "256Mi", corev1.PodPending),
		requesting("1", "1Gi", corev1.PodSucceeded),
	})
	if left.Cpu().MilliValue() != 1250 || left.Memory().Value() != 4<<30-384<<20 {
		t.Errorf("free %s CPU, %s memory; want 1250m and 4Gi-384Mi", left.Cpu(), left.Memory())
	}
	// Two Guaranteed pods of 500m fit in it, two of 1 CPU do not.
	if left.Cpu().Cmp(resource.MustParse("1")) < 0 || left.Cpu().Cmp(resource.MustParse("2")) >= 0 {
		t.Errorf("free %s: want room for 2×500m and not for 2×1", left.Cpu())
	}
}

func TestSchedulableNodes(t *testing.T) {
	ready := corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}
	for _, c := range []struct {
		name string
		node corev1.Node
		want bool
	}{
		{"ready", corev1.Node{Status: ready}, true},
		{"not ready", corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}}, false},
		{"cordoned", corev1.Node{Spec: corev1.NodeSpec{Unschedulable: true}, Status: ready}, false},
		{"a control plane's taint", corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}}, Status: ready}, false},
		{"a taint that only prefers", corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}}, Status: ready}, true},
	} {
		if got := schedulable(&c.node); got != c.want {
			t.Errorf("%s: schedulable %v, want %v", c.name, got, c.want)
		}
	}
}
