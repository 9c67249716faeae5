package local

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

func specFor(t *testing.T, mode string) target.Spec {
	return specWith(t, targettest.BuildSvc(t), mode)
}

// specWith is specFor with the test service's binary given.
func specWith(t *testing.T, binary, mode string) target.Spec {
	return target.Spec{
		Binary:       binary,
		Args:         func(l config.Listen) []string { return []string{"-addr", l.Addr, "-mode", mode} },
		Env:          func(config.Listen) []string { return nil },
		Ready:        "/healthz",
		ReadyTimeout: 10 * time.Second,
		LogDir:       t.TempDir(),
	}
}

func prepared(t *testing.T, limits cgroup.Limits) (*Target, target.Environment) {
	t.Helper()
	tg := New(limits, "")
	env, err := tg.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg, env
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

func TestStartConfinedWithLimitsAndGOMAXPROCS(t *testing.T) {
	tg, env := prepared(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if os.Geteuid() == 0 && env.Confinement == "unconfined" {
		t.Fatalf("root but unconfined: %v", env.Warnings)
	}
	inst, err := tg.Start(context.Background(), specFor(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	p := inst.(*process)
	if got := get(t, inst.BaseURL()+"/gomaxprocs"); got != "1" || env.GOMAXPROCS != 1 {
		t.Errorf("GOMAXPROCS in service = %s, recorded %d; want 1 for a 500m limit", got, env.GOMAXPROCS)
	}
	c, err := inst.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if env.Confinement != "unconfined" {
		if c.Cgroup == nil {
			t.Fatal("confined process has no cgroup counters")
		}
		limits, err := p.group.Limits()
		if err != nil || limits.CPUMillicores != 500 || limits.MemoryBytes != 64<<20 {
			t.Errorf("limits read back = %+v, %v", limits, err)
		}
	}
	if len(env.ServiceCPUs) > 0 {
		aff, _ := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
		want := "Cpus_allowed_list:\t" + strconv.Itoa(env.ServiceCPUs[0])
		if !strings.Contains(string(aff), want) {
			t.Errorf("service not pinned to %v:\n%s", env.ServiceCPUs, aff)
		}
	}
	exit := inst.Stop()
	if exit.ExitedOnItsOwn || exit.OOMKilled {
		t.Errorf("clean stop reported as %+v", exit)
	}
	assertGone(t, p)
}

func TestServiceDyingAtStartFailsFast(t *testing.T) {
	tg, _ := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 64 << 20})
	spec := specFor(t, "die")
	// Fast means long before the readiness deadline, not a fixed time that
	// a loaded machine can miss (issue 58), as the docker target's test.
	spec.ReadyTimeout = 2 * time.Minute
	start := time.Now()
	_, err := tg.Start(context.Background(), spec)
	var se *target.StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StartError", err)
	}
	if elapsed := time.Since(start); elapsed > spec.ReadyTimeout/4 {
		t.Errorf("took %v to notice a service that exits at once", elapsed)
	}
	if !strings.Contains(err.Error(), "cannot open database") || !strings.Contains(err.Error(), "exited during start-up") {
		t.Errorf("error does not carry the cause and stderr: %v", err)
	}
	if !se.Exit.ExitedOnItsOwn || se.Exit.Code != 3 {
		t.Errorf("exit = %+v, want its own exit with code 3", se.Exit)
	}
}

func TestServiceNeverReadyTimesOut(t *testing.T) {
	tg, _ := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 64 << 20})
	spec := specFor(t, "never-ready")
	spec.ReadyTimeout = time.Second
	_, err := tg.Start(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "did not become ready within 1s") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want a readiness timeout naming the last answer", err)
	}
}

func TestMemoryLimitOOMKill(t *testing.T) {
	tg, env := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 24 << 20})
	if env.Confinement == "unconfined" {
		t.Skip("needs cgroups")
	}
	inst, err := tg.Start(context.Background(), specFor(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(inst.BaseURL() + "/hog"); err == nil {
		resp.Body.Close() // the hog is killed mid-answer; only its death matters
	}
	select {
	case <-inst.Exited():
	case <-time.After(60 * time.Second): // the kill comes in well under a second; generous for a loaded machine (issue 58)
		t.Fatal("service hogging 64 MiB under a 24 MiB limit is still alive after 60 s")
	}
	exit := inst.Stop()
	if !exit.OOMKilled || !exit.ExitedOnItsOwn || exit.Signal != "killed" {
		t.Errorf("exit = %+v, want an OOM kill", exit)
	}
}

func TestStopKillsTheWholeProcessGroup(t *testing.T) {
	tg, _ := prepared(t, cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 64 << 20})
	spec := specFor(t, "spawn")
	inst, err := tg.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	out, _ := os.ReadFile(filepath.Join(spec.LogDir, "stdout.log"))
	var child int
	if fields := strings.Fields(string(out)); len(fields) == 2 {
		child, _ = strconv.Atoi(fields[1])
	}
	if child == 0 {
		t.Fatalf("no child pid in stdout: %q", out)
	}
	inst.Stop()
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(child, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(child, 0) == nil && !isZombie(child) {
		t.Errorf("child %d of the service survived Stop", child)
	}
	assertGone(t, inst.(*process))
}

func isZombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(stat), ") Z ")
}

func assertGone(t *testing.T, p *process) {
	t.Helper()
	if err := syscall.Kill(p.cmd.Process.Pid, 0); err == nil {
		t.Errorf("service pid %d still exists after Stop", p.cmd.Process.Pid)
	}
	if p.group != nil {
		for _, f := range p.group.ProcsFiles() {
			if _, err := os.Stat(filepath.Dir(f)); !os.IsNotExist(err) {
				t.Errorf("cgroup %s still exists after Stop", filepath.Dir(f))
			}
		}
	}
}

func TestCPULimitAboveTheServiceCPUsIsAWarning(t *testing.T) {
	allowed, err := affinity.Allowed()
	if err != nil || len(allowed) < 2 {
		t.Skip("needs at least two CPUs")
	}
	_, env := prepared(t, cgroup.Limits{CPUMillicores: int64(len(allowed)) * 1000, MemoryBytes: 64 << 20})
	found := false
	for _, w := range env.Warnings {
		found = found || strings.Contains(w, "cannot use its whole quota")
	}
	if !found {
		t.Errorf("a %d-core limit with %d CPUs left for the service gave no warning: %v", len(allowed), len(env.ServiceCPUs), env.Warnings)
	}
}
