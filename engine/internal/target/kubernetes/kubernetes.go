// Package kubernetes runs the service on a Kubernetes cluster: one
// Deployment with one replica per service process, requests equal to
// limits (Guaranteed QoS), a ClusterIP Service for each of the two that
// may run at once (a duet's base and head, on one node), and perfgate's
// own load generator as a Job in the same namespace, so the load stays
// inside the cluster. perfgate reaches the service's pprof endpoints and the load
// generator through the API server's pod proxy; nothing is exposed
// outside the cluster. Everything created carries the run's labels and is
// deleted on every exit path.
package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/netns"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Target is the kubernetes target. The zero value is not usable; call New.
type Target struct {
	name     string // "kubernetes", or "kind" when the kind target drives it
	settings config.Kubernetes
	limits   cgroup.Limits
	// serviceEnv is service.env; GOMAXPROCS and GOMEMLIMIT there win over
	// the values perfgate derives from the limits.
	serviceEnv map[string]string

	// ownSettings says settings are perfgate's own (the kind target's
	// cluster), not perfgate.yml's: its image_load then runs as perfgate.
	ownSettings bool

	cluster *cluster
	run     string
	// namespace is where the run's objects live; ownNamespace says
	// perfgate created it (and deletes it whole).
	namespace    string
	ownNamespace bool
	images       *images
	workDir      string
	env          target.Environment
	gomaxprocs   int
	loadgenPod   string
	// loadFromHere says perfgate drives the run's pods from this machine
	// (load_from_here.go), not through the in-cluster generator.
	loadFromHere bool
	// podNetwork, when set (ReachPodsThrough), is the network namespace
	// perfgate reaches the pods from: the only one with a route to them
	// (a kind node's).
	podNetwork *netns.Namespace
	// placement is the split of the node's CPUs between the service
	// pods and the load generator when the node is this machine
	// (placement.go).
	placement placement
	// node is this machine's node (the generator's) when the run is
	// driven from here or placed: the service pods are bound to it, and
	// may not land on another node of the cluster, whose pods perfgate
	// neither reads, reaches nor places.
	node string
	// token is the run's secret for the load generator's control calls;
	// endpoints are the run's Services, the only places it may send load
	// (guarded by mu).
	token     string
	endpoints []*endpoint
	// duetRoom is why a duet's two pods do not fit on one node (DuetRoom),
	// nil when they do.
	duetRoom error

	target.Warner

	mu       sync.Mutex
	live     target.Live[*instance]
	started  int
	warnings []string
	// leaving are stopped service pods not removed yet, each channel
	// closed once its pod is gone (leaving.go).
	leaving []chan struct{}
	// nodes is each node's CPUs, read once (nodeCPUs; guarded by nodesMu).
	nodesMu sync.Mutex
	nodes   map[string]int
}

// New returns a kubernetes target for the config's kubernetes section.
func New(name string, settings config.Kubernetes, limits cgroup.Limits, serviceEnv map[string]string) *Target {
	return &Target{name: name, settings: settings, limits: limits, serviceEnv: serviceEnv}
}

func (t *Target) Name() string { return t.name }

// LoadsInside marks the target's load as generated in the cluster
// (target.LoadsInside); DuetGenerator lets one generator there drive a
// duet's two services (target.RemoteDuet).
func (t *Target) LoadsInside() {}

// StartsInParallel: a pod's start and stop are mostly the cluster's
// waiting (target.StartsInParallel), and Start and Stop are safe to call
// at once.
func (t *Target) StartsInParallel() {}

// Configure replaces the kubernetes settings with perfgate's own before
// Prepare: the kind target knows its cluster's kubeconfig and image loader
// (perfgate's own `kind load`, which needs root's Docker) only once it has
// created the cluster.
func (t *Target) Configure(settings config.Kubernetes) { t.settings, t.ownSettings = settings, true }

// ReachPodsThrough makes perfgate reach the pods' IPs from network
// namespace ns (kind's node) when it drives them from this machine. The
// caller keeps ns, and closes it after Close.
func (t *Target) ReachPodsThrough(ns *netns.Namespace) { t.podNetwork = ns }

// Prepare connects to the cluster, makes the run's namespace (its own when
// allowed), ships the load generator's image and starts its Job.
func (t *Target) Prepare(ctx context.Context) (target.Environment, error) {
	t.env = target.Environment{Target: t.name, Limits: t.limits}
	var err error
	if t.cluster, err = connect(ctx, t.settings, !t.ownSettings); err != nil {
		return t.env, err
	}
	t.run = target.NewRunName()
	t.env.Confinement = fmt.Sprintf("kubernetes %s (context %s), Guaranteed QoS", t.cluster.version, t.cluster.context)

	if t.gomaxprocs, err = t.env.SizeGOMAXPROCS(t.limits.CPUMillicores, t.serviceEnv["GOMAXPROCS"]); err != nil {
		return t.env, err
	}

	if t.images, err = newImages(firstSet(t.settings.ImageRepository, "perfgate"), t.settings.ImageLoad, t.run, !t.ownSettings); err != nil {
		return t.env, err
	}
	t.workDir = t.images.workDir
	if err := t.makeNamespace(ctx); err != nil {
		return t.env, err
	}
	if err := t.isolate(ctx); err != nil {
		return t.env, err
	}
	if err = t.startLoadGenerator(ctx); err == nil {
		// After the generator's pod, whose request takes room too.
		t.duetRoom = t.checkDuetRoom(ctx)
	}
	t.env.Warnings = append(t.env.Warnings, t.warnings...)
	return t.env, err
}

// makeNamespace creates the run's own namespace unless one is configured;
// without the right to create namespaces it falls back to the kubeconfig
// context's namespace, with a warning.
func (t *Target) makeNamespace(ctx context.Context) error {
	if t.cluster.namespace != "" {
		t.namespace = t.cluster.namespace
		return nil
	}
	_, err := t.cluster.clientset.CoreV1().Namespaces().Create(ctx, namespace(t.run), metav1.CreateOptions{})
	switch {
	case err == nil:
		t.namespace, t.ownNamespace = t.run, true
		return nil
	case apierrors.IsForbidden(err):
		t.namespace = t.cluster.contextNamespace
		t.warnings = append(t.warnings, fmt.Sprintf("perfgate may not create namespaces (%v), so the run's objects go to namespace %q; set kubernetes.namespace to choose it", err, t.namespace))
		return nil
	}
	return fmt.Errorf("target kubernetes: create namespace %s: %w", t.run, err)
}

// isolate creates the run's NetworkPolicies. Without the right to, the
// run goes on with a warning: the load generator's token still guards it.
func (t *Target) isolate(ctx context.Context) error {
	for _, p := range networkPolicies(t.run, t.namespace) {
		_, err := t.cluster.clientset.NetworkingV1().NetworkPolicies(t.namespace).Create(ctx, p, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) {
			t.warnings = append(t.warnings, fmt.Sprintf("perfgate may not create NetworkPolicies in namespace %q (%v), so other pods of the cluster can reach the run's service; the load generator still requires the run's token. Allow networkpolicies in the namespace to isolate the run", t.namespace, err))
			return nil
		}
		if err != nil {
			return fmt.Errorf("target kubernetes: create NetworkPolicy %s: %w", p.Name, err)
		}
	}
	return nil
}

// startLoadGenerator creates the run's Services and the generator's
// token, ships perfgate itself as the load generator's image, and waits
// for its Job's pod to be ready. The Job is told the Services' addresses
// as the only places it may send load.
func (t *Target) startLoadGenerator(ctx context.Context) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ref, err := t.images.ensure(ctx, "load-generator", self)
	if err != nil {
		return err
	}
	hosts, err := t.createEndpoints(ctx)
	if err != nil {
		return err
	}
	if t.token, err = loadgen.NewToken(); err != nil {
		return err
	}
	spec := loadgenSpec{Run: t.run, Namespace: t.namespace, Image: ref, Targets: hosts}
	if _, err := t.cluster.clientset.CoreV1().Secrets(t.namespace).Create(ctx, spec.Secret(t.token), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("target kubernetes: create the load generator's Secret: %w", err)
	}
	job := spec.Job()
	if _, err := t.cluster.clientset.BatchV1().Jobs(t.namespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("target kubernetes: create the load generator's Job: %w", err)
	}
	pod, err := t.waitPod(ctx, labelSelector(job.Spec.Template.Labels), 2*time.Minute, "the load generator")
	if err != nil {
		return err
	}
	t.loadgenPod = pod.Name
	generatorPid, err := containerProcess(pod)
	onThisMachine := err == nil
	if t.loadFromHere, err = t.decideLoadFrom(pod, onThisMachine); err != nil {
		return err
	}
	switch {
	case t.loadFromHere:
		t.env.Confinement += ", counters from the container's cgroup on this machine, load and profile reads from this machine to the pods' IPs"
	case onThisMachine:
		t.env.Confinement += ", counters from the container's cgroup on this machine"
	default:
		t.env.Confinement += ", counters from the kubelet's cAdvisor"
		t.warnings = append(t.warnings, "the cluster's nodes are not this machine, so CPU and throttling come from the kubelet's cAdvisor metrics, which it refreshes only every few seconds: CPU per request over windows shorter than about 30 s is approximate; lengthen load.duration or run perfgate on the node")
	}
	if onThisMachine {
		t.placeRun(generatorPid, pod.Spec.NodeName)
	}
	if t.loadFromHere {
		// Driven from here, the run never calls its generator again, and
		// an idle generator exits after loadgen.IdleExit, failing its Job
		// mid-gate on the measured node: remove it now, and wait for its
		// pod, whose request the duet's room check would count.
		t.node = pod.Spec.NodeName
		if err := t.removeLoadGenerator(ctx, job.Name, labelSelector(job.Spec.Template.Labels)); err != nil {
			return err
		}
	}
	return nil
}

// Close stops every service still running and deletes everything the run
// created: the namespace when it is perfgate's own, otherwise each object
// by the run's label. It waits until they are gone, so nothing of the run
// is left when perfgate exits, and restores perfgate's CPU affinity.
func (t *Target) Close() error {
	t.live.Each(func(i *instance) { i.Stop() })
	var errs []error
	if t.cluster != nil && t.namespace != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		errs = append(errs, t.deleteRun(ctx))
		// The run's pods are gone with it: no watch of a stopped one
		// may warn after Close.
		errs = append(errs, t.waitForLeavingPods(ctx))
	}
	if t.workDir != "" {
		errs = append(errs, os.RemoveAll(t.workDir))
	}
	errs = append(errs, t.placement.undo())
	return errors.Join(errs...)
}

// deleteRun deletes the run's objects and waits for them to disappear.
func (t *Target) deleteRun(ctx context.Context) error {
	return deleteRun(ctx, t.cluster.clientset, t.namespace, t.run, t.ownNamespace)
}

// deleteRun deletes run's objects in namespace, the namespace itself when
// it is the run's own, and waits for them to disappear. Close and Sweep
// both use it.
func deleteRun(ctx context.Context, client kubernetes.Interface, namespace, run string, ownNamespace bool) error {
	core, selector := client.CoreV1(), metav1.ListOptions{LabelSelector: LabelRun + "=" + run}
	del := foregroundDelete()
	if ownNamespace {
		if err := core.Namespaces().Delete(ctx, namespace, del); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("target kubernetes: delete namespace %s: %w", namespace, err)
		}
		return pollUntil(ctx, func() (bool, error) {
			_, err := core.Namespaces().Get(ctx, namespace, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}, "namespace "+namespace+" to be deleted")
	}
	errs := []error{
		client.AppsV1().Deployments(namespace).DeleteCollection(ctx, del, selector),
		client.BatchV1().Jobs(namespace).DeleteCollection(ctx, del, selector),
		core.Secrets(namespace).DeleteCollection(ctx, del, selector),
		client.NetworkingV1().NetworkPolicies(namespace).DeleteCollection(ctx, del, selector),
	}
	services, err := core.Services(namespace).List(ctx, selector)
	errs = append(errs, err)
	if err == nil {
		for _, s := range services.Items {
			errs = append(errs, core.Services(namespace).Delete(ctx, s.Name, del))
		}
	}
	errs = append(errs, waitPodsGone(ctx, core.Pods(namespace), selector, "the run's pods to be deleted"))
	return errors.Join(errs...)
}

// removeLoadGenerator deletes the run's load generator Job (name, its pod
// selected by selector) and its token's Secret, and waits for the pod to
// be gone.
func (t *Target) removeLoadGenerator(ctx context.Context, name, selector string) error {
	del := foregroundDelete()
	if err := t.cluster.clientset.BatchV1().Jobs(t.namespace).Delete(ctx, name, del); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("target %s: delete the unused load generator's Job %s: %w", t.name, name, err)
	}
	if err := t.cluster.clientset.CoreV1().Secrets(t.namespace).Delete(ctx, loadgenSpec{Run: t.run}.secretName(), del); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("target %s: delete the unused load generator's Secret: %w", t.name, err)
	}
	return waitPodsGone(ctx, t.cluster.clientset.CoreV1().Pods(t.namespace), metav1.ListOptions{LabelSelector: selector}, "the unused load generator's pod to be deleted")
}

// foregroundDelete deletes an object's dependents (a Job's pods, a
// Deployment's ReplicaSets) before the object itself, so waiting for the
// object also waits for them.
func foregroundDelete() metav1.DeleteOptions {
	foreground := metav1.DeletePropagationForeground
	return metav1.DeleteOptions{PropagationPolicy: &foreground}
}

// waitPodsGone polls until no pod that opts selects is left in pods.
func waitPodsGone(ctx context.Context, pods typedcorev1.PodInterface, opts metav1.ListOptions, what string) error {
	return pollUntil(ctx, func() (bool, error) {
		list, err := pods.List(ctx, opts)
		return err == nil && len(list.Items) == 0, err
	}, what)
}

// serviceEnvFor is service.env with {addr}/{port} filled, plus GOMAXPROCS
// and GOMEMLIMIT from the limits unless service.env sets them.
func (t *Target) serviceEnvFor(spec target.Spec, l config.Listen) map[string]string {
	env := map[string]string{}
	for _, kv := range spec.Env(l) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if _, ok := env["GOMAXPROCS"]; !ok {
		env["GOMAXPROCS"] = strconv.Itoa(t.gomaxprocs)
	}
	if _, ok := env["GOMEMLIMIT"]; !ok {
		// 90% of the limit: the runtime collects harder before the kernel
		// kills, as it would be configured in production.
		env["GOMEMLIMIT"] = strconv.FormatInt(t.limits.MemoryBytes/10*9, 10)
	}
	return env
}

func labelSelector(labels map[string]string) string {
	return metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: labels})
}

// pollUntil calls done every 250 ms until it says so, fails, or ctx ends.
func pollUntil(ctx context.Context, done func() (bool, error), what string) error {
	for {
		ok, err := done()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("target kubernetes: waiting for %s: %w", what, err)
			}
			return fmt.Errorf("target kubernetes: gave up waiting for %s: %w", what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
