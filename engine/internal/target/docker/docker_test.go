package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/image"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

func specFor(t *testing.T, mode string) target.Spec {
	return target.Spec{
		Binary:       targettest.BuildSvc(t),
		Args:         func(l config.Listen) []string { return []string{"-addr", l.Addr, "-mode", mode} },
		Env:          func(l config.Listen) []string { return []string{"SVC_PORT=" + strconv.Itoa(l.Port)} },
		Ready:        "/healthz",
		ReadyTimeout: 10 * time.Second,
		LogDir:       t.TempDir(),
	}
}

func prepared(t *testing.T, limits cgroup.Limits) *Target {
	t.Helper()
	tg := New(limits, "")
	if _, err := tg.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func labelled(t *testing.T, run string) string {
	return docker(t, "container", "ls", "--all", "--quiet", "--filter", "label="+labelRun+"="+run) +
		docker(t, "image", "ls", "--quiet", "--filter", "label="+labelRun+"="+run)
}

func TestContainerIsConfinedAndReachedWithoutDockerProxy(t *testing.T) {
	targettest.RequireDocker(t)
	limits := cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}
	tg := prepared(t, limits)
	spec := specFor(t, "ok")
	inst, err := tg.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	c := inst.(*container)

	u, _ := url.Parse(inst.BaseURL())
	if u.Hostname() == "127.0.0.1" || u.Port() != strconv.Itoa(servicePort) {
		t.Errorf("BaseURL %s: load should go to the container's bridge address, not through docker-proxy", inst.BaseURL())
	}
	resp, err := http.Get(inst.BaseURL() + "/gomaxprocs")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(body)) != "1" {
		t.Errorf("GOMAXPROCS %q in the container, want 1 for a 500m limit", body)
	}

	// The pull request's code never runs as root, in a container either:
	// without a user namespace, the container's root is the host's.
	if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.pid)); err != nil || !strings.Contains(string(status), "\nUid:\t65534\t65534\t65534\t65534\n") {
		t.Errorf("the service's process status (%v) does not show uid 65534 (nobody):\n%s", err, status)
	}
	got, err := c.group.Limits()
	if err != nil || got.CPUMillicores != 500 || got.MemoryBytes != 64<<20 {
		t.Errorf("container cgroup limits %+v (%v), want 500m and 64Mi", got, err)
	}
	counters, err := inst.Counters()
	if err != nil || counters.Cgroup == nil || counters.Cgroup.CPUUsageNanos == 0 || counters.MaxRSSBytes == 0 {
		t.Errorf("counters %+v (%v), want CPU usage and a memory high-water mark", counters, err)
	}
	ports := docker(t, "container", "port", c.id)
	if !strings.HasPrefix(ports, "8080/tcp -> 127.0.0.1:") || strings.Count(ports, "\n") != 0 {
		t.Errorf("published ports %q, want 8080 on 127.0.0.1 only", ports)
	}
	if cpus := docker(t, "container", "inspect", "--format", "{{.HostConfig.CpusetCpus}}", c.id); tg.placement.Service != nil && cpus != joinInts(tg.placement.Service) {
		t.Errorf("cpuset %q, want the service's CPUs %v", cpus, tg.placement.Service)
	}

	exit := inst.Stop()
	if exit.ExitedOnItsOwn || exit.OOMKilled {
		t.Errorf("exit %+v, want a plain stop", exit)
	}
	if logs, _ := os.ReadFile(filepath.Join(spec.LogDir, "stderr.log")); !strings.Contains(string(logs), "listening on 0.0.0.0:8080") {
		t.Errorf("stderr.log %q lacks the service's own log line", logs)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if left := labelled(t, tg.run); left != "" {
		t.Errorf("containers or images left after Close: %s", left)
	}
}

func TestServiceDyingAtStartFailsFastWithItsStderr(t *testing.T) {
	targettest.RequireDocker(t)
	tg := prepared(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	spec := specFor(t, "die")
	// Fast means long before the readiness deadline, not a fixed time:
	// under emulation (scripts/vm) a container alone takes ~10 s to start.
	spec.ReadyTimeout = 2 * time.Minute
	start := time.Now()
	_, err := tg.Start(context.Background(), spec)
	var se *target.StartError
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want a StartError", err)
	}
	if time.Since(start) > spec.ReadyTimeout/4 || !se.Exit.ExitedOnItsOwn || se.Exit.Code != 3 ||
		!strings.Contains(err.Error(), "cannot open database") || !strings.Contains(err.Error(), "exit code 3") {
		t.Errorf("after %v: %v (exit %+v); want a fast failure with exit code 3 and the service's stderr", time.Since(start), err, se.Exit)
	}
	if left := docker(t, "container", "ls", "--all", "--quiet", "--filter", "label="+labelRun+"="+tg.run); left != "" {
		t.Errorf("the dead container was not removed: %s", left)
	}
}

func TestContainerOverItsMemoryLimitIsOOMKilled(t *testing.T) {
	targettest.RequireDocker(t)
	tg := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 24 << 20})
	inst, err := tg.Start(context.Background(), specFor(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(inst.BaseURL() + "/hog"); err == nil {
		resp.Body.Close()
	}
	select {
	case <-inst.Exited():
	case <-time.After(60 * time.Second): // the kill comes in well under a second; generous for a loaded machine (issue 58)
		t.Fatal("the container outlived 64 MiB of allocations under a 24 MiB limit for 60 s")
	}
	exit := inst.Stop()
	if !exit.OOMKilled || !exit.ExitedOnItsOwn || exit.Code != 137 {
		t.Errorf("exit %+v, want OOM-killed on its own with code 137", exit)
	}
}

// TestPrepareSweepsWhatDeadRunsLeft plants a container and an image labelled
// as a dead perfgate's, a container of a live one, and one of another host
// identity sharing the daemon whose PID is dead here: Prepare removes the
// first two and leaves the others alone.
func TestPrepareSweepsWhatDeadRunsLeft(t *testing.T) {
	targettest.RequireDocker(t)
	host := owner.Host()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	archive := filepath.Join(t.TempDir(), "stale.tar")
	stale := "perfgate/service:stale-" + target.NewRunName()
	if _, err := image.WriteArchive(archive, image.Spec{Ref: stale, Binary: targettest.BuildSvc(t), Labels: map[string]string{
		labelRun: "stale", labelPID: deadPID, labelHost: host,
	}}); err != nil {
		t.Fatal(err)
	}
	docker(t, "load", "--quiet", "--input", archive)
	labels := func(host, pid string) []string {
		return []string{"--label", labelRun + "=stale", "--label", labelPID + "=" + pid, "--label", labelHost + "=" + host}
	}
	deadContainer := docker(t, append(append([]string{"create"}, labels(host, deadPID)...), stale)...)
	liveContainer := docker(t, append(append([]string{"create"}, labels(host, strconv.Itoa(os.Getpid()))...), "--label", "keep=1", stale)...)
	otherHostContainer := docker(t, append(append([]string{"create"}, labels("0f0f0f0f0f0f", deadPID)...), stale)...)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "--force", liveContainer, otherHostContainer).Run() }) // the sweep may have removed them

	prepared(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if out, _ := exec.Command("docker", "container", "inspect", deadContainer).CombinedOutput(); !strings.Contains(string(out), "No such") {
		t.Errorf("the dead run's container is still there")
	}
	if out, _ := exec.Command("docker", "container", "inspect", liveContainer).CombinedOutput(); strings.Contains(string(out), "No such") {
		t.Errorf("a live run's container was removed")
	}
	if out, _ := exec.Command("docker", "container", "inspect", otherHostContainer).CombinedOutput(); strings.Contains(string(out), "No such") {
		t.Errorf("another host identity's container was removed")
	}
	// The image stays while the other containers use it; once they are
	// gone, the next sweep takes the image too.
	docker(t, "rm", "--force", liveContainer, otherHostContainer)
	prepared(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if out, _ := exec.Command("docker", "image", "inspect", stale).CombinedOutput(); !strings.Contains(string(out), "No such") {
		t.Errorf("the dead run's image %s is still there", stale)
	}
}

// TestNoEngineIsAnInfrastructureErrorSayingHowToStartOne needs only the
// docker command: DOCKER_HOST points at a socket nobody listens on.
func TestNoEngineIsAnInfrastructureErrorSayingHowToStartOne(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("the docker command is not installed")
	}
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "nobody.sock"))
	_, err := New(cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}, "").Prepare(context.Background())
	var ie *InfraError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "no Docker engine answers") || !strings.Contains(err.Error(), "systemctl start docker") {
		t.Errorf("error %v, want an InfraError saying how to start Docker", err)
	}
}

// TestRootRunsNoDockerFromTheGivenPath: as root, a `docker` planted
// earlier on PATH (a directory the job's user can write, as a pull
// request's build could) never runs: the docker target takes docker from
// where root alone can change it (privilege.Tool).
func TestRootRunsNoDockerFromTheGivenPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the secure PATH applies to root only")
	}
	planted := t.TempDir()
	marker := filepath.Join(planted, "ran")
	if err := os.WriteFile(filepath.Join(planted, "docker"), []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", planted+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "nobody.sock"))
	tg := New(cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}, "")
	_, _ = tg.Prepare(context.Background())
	tg.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Error("root ran the docker planted on PATH")
	}
}
