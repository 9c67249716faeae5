package kubernetes

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// DuetRoom says whether a duet's two service pods fit on one node of the
// cluster beside what already runs there (the run's load generator
// among it), as Prepare found it: nil when they do, or when perfgate may
// not list nodes and pods to know. Guaranteed pods request what they are
// limited to, so a duet of resources.cpu 1 needs two free CPUs on one node;
// on a 2-CPU node (kind or a local cluster on a small runner) it does not
// fit, and the gate runs sequential pairs instead of failing to schedule.
func (t *Target) DuetRoom() error { return t.duetRoom }

// checkDuetRoom finds a node with room for two service pods, or says
// how much the roomiest one has; a run bound to one node (this machine's,
// t.node) looks at that node only.
func (t *Target) checkDuetRoom(ctx context.Context) error {
	cpu := resource.NewMilliQuantity(2*t.limits.CPUMillicores, resource.DecimalSI)
	memory := resource.NewQuantity(2*t.limits.MemoryBytes, resource.BinarySI)
	nodes, err := t.cluster.clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if apierrors.IsForbidden(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("target %s: list the nodes: %w", t.name, err)
	}
	var best *corev1.ResourceList
	for _, node := range nodes.Items {
		if !schedulable(&node) || (t.node != "" && node.Name != t.node) {
			continue
		}
		free, err := t.freeOn(ctx, &node)
		if apierrors.IsForbidden(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if free.Cpu().Cmp(*cpu) >= 0 && free.Memory().Cmp(*memory) >= 0 {
			return nil
		}
		if best == nil || free.Cpu().Cmp(*best.Cpu()) > 0 {
			best = &free
		}
	}
	has := "no node takes new pods"
	if t.node != "" {
		has = fmt.Sprintf("node %s, this machine, to which the run is bound, does not take new pods", t.node)
	}
	if best != nil && t.node != "" {
		has = fmt.Sprintf("node %s, this machine, to which the run is bound, has %s CPU and %dMi of memory free", t.node, best.Cpu(), best.Memory().Value()>>20)
	} else if best != nil {
		has = fmt.Sprintf("the roomiest node has %s CPU and %dMi of memory free", best.Cpu(), best.Memory().Value()>>20)
	}
	return fmt.Errorf("a duet on the %s target needs two pods of resources.cpu %s and memory %s on one node (%s CPU, %s in all, requests being limits), and %s: lower resources.cpu or give the node more CPUs",
		t.name, resource.NewMilliQuantity(t.limits.CPUMillicores, resource.DecimalSI), resource.NewQuantity(t.limits.MemoryBytes, resource.BinarySI), cpu, memory, has)
}

// schedulable is a Ready node that takes new pods: not cordoned, and
// without a taint that keeps pods off (perfgate's pods tolerate none).
func schedulable(node *corev1.Node) bool {
	if node.Spec.Unschedulable {
		return false
	}
	for _, taint := range node.Spec.Taints {
		if taint.Effect == corev1.TaintEffectNoSchedule || taint.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// freeOn is node's allocatable CPU and memory less what its pods that
// have not finished request.
func (t *Target) freeOn(ctx context.Context, node *corev1.Node) (corev1.ResourceList, error) {
	pods, err := t.cluster.clientset.CoreV1().Pods("").List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node.Name).String(),
	})
	if err != nil {
		return nil, err
	}
	return free(node.Status.Allocatable, pods.Items), nil
}

// free is allocatable CPU and memory less the requests of the pods that
// have not finished.
func free(allocatable corev1.ResourceList, pods []corev1.Pod) corev1.ResourceList {
	left := corev1.ResourceList{corev1.ResourceCPU: allocatable.Cpu().DeepCopy(), corev1.ResourceMemory: allocatable.Memory().DeepCopy()}
	for _, pod := range pods {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, c := range pod.Spec.Containers {
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if q, ok := c.Resources.Requests[name]; ok {
					v := left[name]
					v.Sub(q)
					left[name] = v
				}
			}
		}
	}
	return left
}
