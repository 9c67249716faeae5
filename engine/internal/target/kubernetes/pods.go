package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// failFastReasons are container waiting reasons that will not clear by
// waiting: the pod is reported at once with its events and logs instead of
// at the rollout deadline.
var failFastReasons = map[string]string{
	"ErrImagePull":      "its image cannot be pulled",
	"ImagePullBackOff":  "its image cannot be pulled",
	"InvalidImageName":  "its image name is invalid",
	"ErrImageNeverPull": "its image is not on the node",
	"CrashLoopBackOff":  "it keeps crashing",
}

// retriedReasons are waiting reasons the kubelet retries on its own and
// that often clear: "failed to sync secret cache: timed out waiting for the
// condition" is a CreateContainerConfigError on a busy node, and the next
// sync starts the container. They fail the run only once they have lasted
// retriedGrace; a missing Secret or an invalid spec lasts forever.
var retriedReasons = map[string]string{
	"CreateContainerConfigError": "its container configuration is invalid",
	"CreateContainerError":       "its container cannot be created",
	"RunContainerError":          "its container cannot be started",
}

// retriedGrace covers a few of the kubelet's pod sync retries (about 10 s
// apart after an error).
const retriedGrace = 30 * time.Second

// podProblem says why a pod will never become ready, or "" while it still
// may. restarted is set when its container has already died once; retried
// is set when the kubelet keeps retrying the problem, so it may clear.
func podProblem(pod *corev1.Pod) (problem string, restarted, retried bool) {
	if pod.Status.Phase == corev1.PodFailed {
		return fmt.Sprintf("the pod failed: %s %s", pod.Status.Reason, pod.Status.Message), false, false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return "the pod cannot be scheduled: " + c.Message, false, false
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			if why, ok := failFastReasons[w.Reason]; ok {
				return fmt.Sprintf("%s (%s: %s)", why, w.Reason, w.Message), cs.RestartCount > 0, false
			}
			if why, ok := retriedReasons[w.Reason]; ok {
				return fmt.Sprintf("%s (%s: %s)", why, w.Reason, w.Message), cs.RestartCount > 0, true
			}
		}
		if cs.RestartCount > 0 || cs.State.Terminated != nil {
			term := cs.State.Terminated
			if term == nil {
				term = cs.LastTerminationState.Terminated
			}
			if term != nil {
				return fmt.Sprintf("its container exited during start-up (%s, exit code %d)", term.Reason, term.ExitCode), true, false
			}
			return "its container restarted during start-up", true, false
		}
	}
	return "", false, false
}

// retriedProblem remembers since when a retried problem has been seen, so
// that one that clears between two looks never fails the run.
type retriedProblem struct{ since time.Time }

// lasting reports whether the problem seen at now (retried or not, "" when
// none) should fail the run.
func (r *retriedProblem) lasting(problem string, retried bool, now time.Time) bool {
	switch {
	case problem == "":
		r.since = time.Time{}
		return false
	case !retried:
		return true
	case r.since.IsZero():
		r.since = now
	}
	return now.Sub(r.since) >= retriedGrace
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// allStopped says whether none of pods has a container that may still
// run: each is gone, being deleted with every container terminated, or
// failed or succeeded as a whole.
func allStopped(pods []corev1.Pod) bool {
	for _, pod := range pods {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		if pod.DeletionTimestamp == nil || len(pod.Status.ContainerStatuses) == 0 {
			return false
		}
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Terminated == nil {
				return false
			}
		}
	}
	return true
}

// waitPod waits for the one pod matching selector to be ready. A pod that
// cannot become ready fails at once (a problem the kubelet retries, once it
// has lasted retriedGrace), with its events and its logs, as a StartError.
func (t *Target) waitPod(ctx context.Context, selector string, timeout time.Duration, what string) (*corev1.Pod, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods := t.cluster.clientset.CoreV1().Pods(t.namespace)
	var last *corev1.Pod
	var retried retriedProblem
	var lastProblem string
	for {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil && len(list.Items) > 0 {
			pod := &list.Items[0]
			last = pod
			problem, restarted, kubeletRetries := podProblem(pod)
			lastProblem = problem
			if retried.lasting(problem, kubeletRetries, time.Now()) {
				return nil, &target.StartError{
					Reason: fmt.Sprintf("%s did not start in pod %s/%s: %s%s", what, pod.Namespace, pod.Name, problem, t.podEvents(pod)),
					Exit:   target.Exit{ExitedOnItsOwn: restarted, StderrTail: t.podLogs(pod, restarted, 20)},
				}
			}
			if podReady(pod) {
				return pod, nil
			}
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return nil, parent.Err() // interrupted, not a start failure
			}
			state := "no pod was created"
			if last != nil {
				state = fmt.Sprintf("pod %s is %s%s", last.Name, last.Status.Phase, t.podEvents(last))
				if lastProblem != "" {
					state = fmt.Sprintf("pod %s is %s: %s%s", last.Name, last.Status.Phase, lastProblem, t.podEvents(last))
				}
			}
			return nil, &target.StartError{Reason: fmt.Sprintf(
				"%s was not ready within %v: %s; check service.ready (the readiness probe) and service.args (it must listen on {addr}), or raise service.ready_timeout", what, timeout, state)}
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// podEvents formats the pod's warning and recent events for a message.
func (t *Target) podEvents(pod *corev1.Pod) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := t.cluster.clientset.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.name": pod.Name, "involvedObject.kind": "Pod"}.String(),
	})
	if err != nil || len(events.Items) == 0 {
		return ""
	}
	sort.Slice(events.Items, func(i, j int) bool {
		return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp)
	})
	var b strings.Builder
	b.WriteString("; pod events:")
	for _, e := range events.Items[max(0, len(events.Items)-8):] {
		fmt.Fprintf(&b, "\n  %s %s: %s", e.Type, e.Reason, strings.TrimSpace(e.Message))
	}
	return b.String()
}

// podLogs is the last lines of the pod's container log; previous reads
// the container that died before the current one.
func (t *Target) podLogs(pod *corev1.Pod, previous bool, lines int64) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := t.cluster.clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: previous, TailLines: &lines}).Stream(ctx)
	if err != nil {
		return ""
	}
	defer stream.Close()
	// The end of a log explains a failure: keep that, not its start.
	data, _ := target.ReadTail(stream, target.LogLimit)
	return strings.TrimRight(string(data), "\n")
}
