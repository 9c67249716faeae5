package kubernetes

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/owner"
)

// deadPID is the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	return dead.Process.Pid
}

// runOf is a run name of o, as NewRunName makes them.
func runOf(o owner.Owner, suffix string) string { return "perfgate-" + o.String() + "-" + suffix }

func TestStaleNamespacesAreOwnDeadRunsOnly(t *testing.T) {
	judge := owner.Judge{Host: "a1b2c3d4e5f6", Alive: func(pid int) bool { return pid == 100 }}
	dead := runOf(owner.Owner{Host: "a1b2c3d4e5f6", PID: 200}, "0a0b0c0d")
	alive := runOf(owner.Owner{Host: "a1b2c3d4e5f6", PID: 100}, "0a0b0c0d")
	otherHost := runOf(owner.Owner{Host: "0f0f0f0f0f0f", PID: 200}, "0a0b0c0d")
	older := "perfgate-0a0b0c0d" // an older perfgate's run: no owner in the name
	ns := func(name, run string) corev1.Namespace {
		return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: runLabels(run, "namespace")}}
	}
	got := staleNamespaces([]corev1.Namespace{
		ns(dead, dead),
		ns(alive, alive),
		ns(otherHost, otherHost),
		ns("team-perf", dead), // a user's namespace carrying a dead run's label
		ns(older, older),
	}, judge)
	if !slices.Equal(got, []string{dead}) {
		t.Errorf("stale namespaces %v, want only %s", got, dead)
	}
}

// TestSweepDeletesDeadRunsLeftovers plants, on a real cluster, a dead
// run's own namespace, a dead run's Secret in the shared namespace, and a
// live run's (this process's) of each: Sweep deletes the first two only.
func TestSweepDeletesDeadRunsLeftovers(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	dead := runOf(owner.Owner{Host: owner.Host(), PID: deadPID(t)}, "0a0b0c0d")
	live := runOf(owner.Self(), "0a0b0c0d")
	shared := firstSet(c.namespace, c.contextNamespace)
	core := c.clientset.CoreV1()
	for _, run := range []string{dead, live} {
		if _, err := core.Namespaces().Create(ctx, namespace(run), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		secret := loadgenSpec{Run: run, Namespace: shared}.Secret("token")
		if _, err := core.Secrets(shared).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := deleteRun(context.Background(), c.clientset, run, run, true); err != nil {
				t.Error(err)
			}
		})
		t.Cleanup(func() {
			if err := deleteRun(context.Background(), c.clientset, shared, run, false); err != nil {
				t.Error(err)
			}
		})
	}

	swept, err := Sweep(ctx, config.Kubernetes{})
	if err != nil || len(swept.Failed) > 0 {
		t.Fatalf("Sweep: %+v, %v", swept, err)
	}
	for _, tc := range []struct {
		run  string
		gone bool
	}{{dead, true}, {live, false}} {
		// Deletion is foreground: the Secret lingers with a finalizer until
		// the garbage collector has been through it, which under load (CI
		// at 0e3c3f1 saw it) takes longer than Sweep's return. Wait for it.
		var nsErr, secretErr error
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, nsErr = core.Namespaces().Get(ctx, tc.run, metav1.GetOptions{})
			_, secretErr = core.Secrets(shared).Get(ctx, tc.run+"-load-token", metav1.GetOptions{})
			if !tc.gone || (apierrors.IsNotFound(nsErr) && apierrors.IsNotFound(secretErr)) || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if apierrors.IsNotFound(nsErr) != tc.gone || apierrors.IsNotFound(secretErr) != tc.gone {
			t.Errorf("run %s: namespace error %v, secret error %v; want gone = %v (swept %v)", tc.run, nsErr, secretErr, tc.gone, swept.Removed)
		}
	}
}
