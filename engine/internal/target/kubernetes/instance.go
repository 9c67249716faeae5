package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/load"
	"github.com/perfgate/perfgate/engine/internal/loadgen"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// instance is one service pod: its Deployment, reached through one of the
// run's Services.
type instance struct {
	t         *Target
	spec      serviceSpec
	endpoint  *endpoint
	pod       *corev1.Pod
	ready     string
	readyTime time.Duration
	logDir    string
	http      *http.Client
	counters  counterSource
	nodeCPUs  int
	// placed says the pod's container runs on the service's CPUs
	// (placement.go).
	placed bool

	exited   chan struct{}
	exitOnce sync.Once
	done     chan struct{} // ends the exit watcher
	stopOnce sync.Once
	exit     target.Exit
}

// Start deploys a fresh service pod of spec's binary and returns once it
// is ready, or as soon as it cannot become ready.
func (t *Target) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	// perfgate.yml's checks refuse both on this target; this keeps a
	// secret out of a pod's spec whatever the caller.
	if spec.SeparatePprof || len(spec.SecretEnv) > 0 {
		return nil, &target.ConfigError{Err: errors.New("target kubernetes: a pprof listener of the service's own ({pprof_addr}, {pprof_port}) and service.env_from are supported on the local and docker targets only")}
	}
	ref, err := t.images.ensure(ctx, "service", spec.Binary)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.started++
	n := t.started
	t.mu.Unlock()
	l := config.Listen{Addr: fmt.Sprintf("0.0.0.0:%d", servicePort), Port: servicePort}
	s := serviceSpec{
		Run: t.run, Instance: n, Namespace: t.namespace, Image: ref, Args: spec.Args(l),
		Env: t.serviceEnvFor(spec, l), CPUMilli: t.limits.CPUMillicores, MemoryBytes: t.limits.MemoryBytes, Ready: spec.Ready, Node: t.node,
	}
	httpClient, err := rest.HTTPClientFor(t.cluster.rest)
	if err != nil {
		return nil, err
	}
	i := &instance{t: t, spec: s, ready: spec.Ready, readyTime: spec.ReadyTimeout, logDir: spec.LogDir, http: httpClient,
		exited: make(chan struct{}), done: make(chan struct{})}
	if i.endpoint, err = t.takeEndpoint(i); err != nil {
		return nil, err
	}
	t.live.Track(i, true)
	if err := t.waitForLeavingPods(ctx); err != nil {
		i.Stop()
		return nil, err
	}
	apps, core := t.cluster.clientset.AppsV1(), t.cluster.clientset.CoreV1()
	if _, err := apps.Deployments(t.namespace).Create(ctx, s.Deployment(), metav1.CreateOptions{}); err != nil {
		i.Stop()
		return nil, fmt.Errorf("target kubernetes: create Deployment %s: %w", s.name(), err)
	}
	if _, err := core.Services(t.namespace).Patch(ctx, i.endpoint.name, types.MergePatchType, selectInstance(n), metav1.PatchOptions{}); err != nil {
		i.Stop()
		return nil, fmt.Errorf("target kubernetes: point Service %s at %s: %w", i.endpoint.name, s.name(), err)
	}
	// Pulling and starting may take longer than the service's own start.
	if i.pod, err = t.waitPod(ctx, labelSelector(s.labels()), spec.ReadyTimeout+time.Minute, "the service"); err != nil {
		exit := i.Stop()
		if se := (*target.StartError)(nil); errors.As(err, &se) {
			exit.StderrTail = firstSet(se.Exit.StderrTail, exit.StderrTail)
			exit.ExitedOnItsOwn = exit.ExitedOnItsOwn || se.Exit.ExitedOnItsOwn
			se.Exit = exit
		}
		return nil, err
	}
	if i.counters, err = t.counterSource(ctx, i.pod); err != nil {
		i.Stop()
		return nil, err
	}
	if err := t.placeOnServiceCPUs(i); err != nil {
		i.Stop()
		return nil, err
	}
	i.nodeCPUs = t.nodeCPUs(ctx, i.pod.Spec.NodeName)
	go i.watchExit()
	if t.loadFromHere {
		return fromHere(i), nil
	}
	return i, nil
}

// BaseURL is the service as the in-cluster load generator reaches it:
// the run's Service that selects this instance's pod while it runs.
func (i *instance) BaseURL() string { return i.endpoint.url }

// ControlURL is the API server's proxy to the pod's port: readiness,
// profiles and MemStats go there, with ControlClient's credentials.
func (i *instance) ControlURL() string {
	return fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s:%d/proxy", strings.TrimRight(i.t.cluster.rest.Host, "/"), i.pod.Namespace, i.pod.Name, servicePort)
}

func (i *instance) ControlClient() *http.Client { return i.http }

// Generator makes a generator on the run's in-cluster load generator,
// aimed at the instance's Service's ClusterIP.
func (i *instance) Generator(rate float64, timeout time.Duration, requests []load.Request) (load.Attacker, error) {
	gen, err := i.t.createGenerator(i.http, i.readyTime, loadgen.NewGenerator{
		URL: i.BaseURL(), Rate: rate, Timeout: timeout, Requests: requests, Ready: i.ready, ReadyTimeout: i.readyTime,
	})
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return gen, nil
}

func (i *instance) Exited() <-chan struct{} { return i.exited }

// Counters reads the container's CPU, throttling and memory counters. A
// failed read of a container that died is reported at once through
// Exited, which the once-a-second watcher could report too late for the
// experiment to tell a crash (an invalid run) from an error.
func (i *instance) Counters() (target.Counters, error) {
	c, err := i.counters.read()
	if err != nil {
		i.died()
	}
	return c, err
}

// watchExit closes exited when the service's container dies (a restart, a
// termination) or its pod disappears, checking once a second.
func (i *instance) watchExit() {
	for {
		select {
		case <-i.done:
			return
		case <-time.After(time.Second):
		}
		if i.died() {
			return
		}
	}
}

// died asks the API server whether the container has died (or its pod
// vanished) and, if so, closes exited. It returns whether it has.
func (i *instance) died() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pod, err := i.t.cluster.clientset.CoreV1().Pods(i.pod.Namespace).Get(ctx, i.pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && containerDied(pod)) {
		i.exitOnce.Do(func() { close(i.exited) })
		return true
	}
	return false
}

func containerDied(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.RestartCount > 0 || cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

// Stop records how the service ended (OOMKilled and restarts from the pod
// status), keeps its logs, deletes its Deployment and waits
// for the pod's container to stop, so the next run has the node to itself.
func (i *instance) Stop() target.Exit {
	i.stopOnce.Do(func() {
		close(i.done)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		select {
		case <-i.exited:
			i.exit.ExitedOnItsOwn = true
		default:
		}
		pods := i.t.cluster.clientset.CoreV1().Pods(i.t.namespace)
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(i.spec.labels())})
		if err == nil && len(list.Items) > 0 {
			pod := &list.Items[0]
			i.recordExit(pod)
			i.keepLogs(pod)
		}
		i.delete(ctx)
		// Only now that its pod has stopped (or been given up on) may
		// the next instance take its Service.
		i.t.releaseEndpoint(i)
		i.t.live.Track(i, false)
	})
	return i.exit
}

// recordExit reads how the container last terminated.
func (i *instance) recordExit(pod *corev1.Pod) {
	for _, cs := range pod.Status.ContainerStatuses {
		term := cs.State.Terminated
		if cs.RestartCount > 0 && cs.LastTerminationState.Terminated != nil {
			term = cs.LastTerminationState.Terminated
		}
		if cs.RestartCount > 0 {
			i.exit.ExitedOnItsOwn = true
		}
		if term == nil {
			continue
		}
		i.exit.Code = int(term.ExitCode)
		if term.ExitCode > 128 && term.ExitCode <= 128+64 {
			i.exit.Signal = syscall.Signal(term.ExitCode - 128).String()
		}
		i.exit.OOMKilled = term.Reason == "OOMKilled"
	}
}

// keepLogs writes the container's log (and the log of the container that
// died before it, if any) to the run's directory. Kubernetes merges stdout
// and stderr, so both files hold the same stream.
func (i *instance) keepLogs(pod *corev1.Pod) {
	restarted := i.exit.ExitedOnItsOwn
	logs := i.t.podLogs(pod, false, 100000)
	if restarted {
		if previous := i.t.podLogs(pod, true, 100000); previous != "" {
			logs = previous
		}
	}
	if i.logDir != "" {
		_ = os.WriteFile(filepath.Join(i.logDir, "stderr.log"), []byte(logs+"\n"), 0o644)
		_ = os.WriteFile(filepath.Join(i.logDir, "stdout.log"), []byte("(Kubernetes merges stdout into stderr.log)\n"), 0o644)
	}
	lines := strings.Split(logs, "\n")
	i.exit.StderrTail = strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// delete removes the instance's Deployment and waits until its pod's
// container has stopped (or the pod is gone). Its Service stays for the
// next instance.
//
// Stopped, not gone: the API server removes a pod about 0.6-0.9 s after
// its container exited (docs/benchmarks.md, "A cluster round's time"), a
// wait that would otherwise add that much to every round of a gate. The
// kubelet's teardown of the pod's sandbox, network and cgroups in that
// time runs on the node's CPUs beside the next round's start, not its
// window (a start and the warm-up take longer); the next Start waits for
// the pod to be gone before it creates its own (leaving.go).
func (i *instance) delete(ctx context.Context) {
	name := i.spec.name()
	if err := i.t.cluster.clientset.AppsV1().Deployments(i.t.namespace).Delete(ctx, name, foregroundDelete()); err != nil && !apierrors.IsNotFound(err) {
		i.t.Warn("could not delete Deployment %s in namespace %s (%v); perfgate deletes the run's objects again when it finishes", name, i.t.namespace, err)
	}
	pods := i.t.cluster.clientset.CoreV1().Pods(i.t.namespace)
	if err := pollUntil(ctx, func() (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(i.spec.labels())})
		return err == nil && allStopped(list.Items), err
	}, "pod of "+name+" to stop"); err != nil {
		i.t.Warn("%v; the next run may share the node with it, which makes its CPU figures noisier", err)
	}
	i.t.podLeaving(labelSelector(i.spec.labels()))
}
