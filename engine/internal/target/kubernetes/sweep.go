package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Sweep deletes what perfgate runs of this host identity left in the
// cluster of settings (kubeconfig and context as the kubernetes target
// finds them) when they died without cleaning up: their own namespaces,
// whole, and their objects in the namespace runs share when they may not
// create one (kubernetes.namespace, else the context's). A run's owner is
// in its name (target.RunOwner); runs of a live perfgate, of another host
// identity, and anything not labelled as perfgate's are left alone. It is
// `perfgate sweep`'s Kubernetes part; the error says no cluster answers.
func Sweep(ctx context.Context, settings config.Kubernetes) (owner.Swept, error) {
	c, err := connect(ctx, settings, true)
	if err != nil {
		return owner.Swept{}, fmt.Errorf("no cluster to look in: %w", err)
	}
	return sweep(ctx, c.clientset, firstSet(c.namespace, c.contextNamespace), owner.Local())
}

func sweep(ctx context.Context, client kubernetes.Interface, shared string, judge owner.Judge) (owner.Swept, error) {
	var swept owner.Swept
	managed := metav1.ListOptions{LabelSelector: LabelManagedBy + "=" + managedBy}
	namespaces, err := client.CoreV1().Namespaces().List(ctx, managed)
	if err != nil && !apierrors.IsForbidden(err) {
		return swept, fmt.Errorf("list perfgate's namespaces: %w", err)
	}
	// A user who may not list namespaces ran in the shared one, below.
	if err == nil {
		for _, run := range staleNamespaces(namespaces.Items, judge) {
			record(ctx, &swept, "namespace "+run, func(ctx context.Context) error {
				return deleteRun(ctx, client, run, run, true)
			})
		}
	}
	runs, err := runsIn(ctx, client, shared, managed)
	if err != nil {
		return swept, err
	}
	for _, run := range runs {
		if o, ok := target.RunOwner(run); ok && judge.Stale(o) {
			record(ctx, &swept, fmt.Sprintf("the objects of run %s in namespace %s", run, shared), func(ctx context.Context) error {
				return deleteRun(ctx, client, shared, run, false)
			})
		}
	}
	return swept, nil
}

// staleNamespaces picks the namespaces perfgate made for a run (named as
// the run, labelled with it, NewRunName's form) whose owner judge finds
// stale. A namespace a user configured is never named and labelled so.
func staleNamespaces(list []corev1.Namespace, judge owner.Judge) []string {
	var stale []string
	for _, ns := range list {
		run := ns.Labels[LabelRun]
		if o, ok := target.RunOwner(run); ok && ns.Name == run && judge.Stale(o) {
			stale = append(stale, run)
		}
	}
	return stale
}

// runsIn lists the runs that have objects in namespace, in the order of
// their names. A kind of object perfgate may not list here is one it could
// not have created either.
func runsIn(ctx context.Context, client kubernetes.Interface, namespace string, managed metav1.ListOptions) ([]string, error) {
	lists := []struct {
		kind string
		list func() (runtime.Object, error)
	}{
		{"Deployments", func() (runtime.Object, error) { return client.AppsV1().Deployments(namespace).List(ctx, managed) }},
		{"Jobs", func() (runtime.Object, error) { return client.BatchV1().Jobs(namespace).List(ctx, managed) }},
		{"Services", func() (runtime.Object, error) { return client.CoreV1().Services(namespace).List(ctx, managed) }},
		{"Secrets", func() (runtime.Object, error) { return client.CoreV1().Secrets(namespace).List(ctx, managed) }},
		{"NetworkPolicies", func() (runtime.Object, error) {
			return client.NetworkingV1().NetworkPolicies(namespace).List(ctx, managed)
		}},
	}
	var runs []string
	for _, l := range lists {
		list, err := l.list()
		if apierrors.IsForbidden(err) {
			continue
		}
		var objects []runtime.Object
		if err == nil {
			objects, err = meta.ExtractList(list)
		}
		if err != nil {
			return nil, fmt.Errorf("list perfgate's %s in namespace %s: %w", l.kind, namespace, err)
		}
		for _, o := range objects {
			if m, err := meta.Accessor(o); err == nil && m.GetLabels()[LabelRun] != "" {
				runs = append(runs, m.GetLabels()[LabelRun])
			}
		}
	}
	slices.Sort(runs)
	return slices.Compact(runs), nil
}

// record deletes one run's leftovers, within the two minutes Close gives
// its own run, and notes the outcome.
func record(ctx context.Context, swept *owner.Swept, what string, remove func(context.Context) error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := remove(ctx); err != nil {
		swept.Failed = append(swept.Failed, fmt.Errorf("could not delete %s, left by a perfgate that is gone: %w", what, err))
		return
	}
	swept.Removed = append(swept.Removed, what)
}
