package kubernetes

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A stopped service pod's container no longer runs (Stop returns then),
// but the scheduler counts the pod's requests against its node until the
// API server has removed it, about 0.6-0.9 s later. A round's new pods
// created in that time could find no room beside it (Unschedulable fails
// a start at once), and on a cluster of several nodes the run's pod
// affinity would tie them to the old pod's node. So Start, not Stop,
// waits for the run's stopped pods to be gone: by then the next round's
// binaries and images have been made (the experiment's roundBinaries),
// which takes longer.

// podLeaving watches the stopped pods of selector until they are gone, or
// a minute has passed.
func (t *Target) podLeaving(selector string) {
	gone := make(chan struct{})
	t.mu.Lock()
	t.leaving = append(t.leaving, gone)
	t.mu.Unlock()
	go func() {
		defer close(gone)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pods := t.cluster.clientset.CoreV1().Pods(t.namespace)
		if err := waitPodsGone(ctx, pods, metav1.ListOptions{LabelSelector: selector}, "stopped pod "+selector+" to be removed"); err != nil {
			t.Warn("%v; the next service pods were created while it was still there", err)
		}
	}()
}

// waitForLeavingPods returns once every pod podLeaving was given so far is
// gone (or given up on), or ctx ends.
func (t *Target) waitForLeavingPods(ctx context.Context) error {
	t.mu.Lock()
	pending := append([]chan struct{}(nil), t.leaving...)
	t.mu.Unlock()
	for _, gone := range pending {
		select {
		case <-gone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.mu.Lock()
	var still []chan struct{}
	for _, gone := range t.leaving {
		select {
		case <-gone:
		default:
			still = append(still, gone)
		}
	}
	t.leaving = still
	t.mu.Unlock()
	return nil
}
