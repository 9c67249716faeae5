package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
)

type serviceIdentity struct {
	Status           map[string]string `json:"status"`
	Dir              string            `json:"dir"`
	Env              []string          `json:"env"`
	CgroupLimitFile  string            `json:"cgroup_limit_file"`
	CgroupWriteError string            `json:"cgroup_write_error"`
}

// startAndAsk starts the test service and returns what it says of itself,
// and the process, stopped by the caller.
func startAndAsk(t *testing.T) (serviceIdentity, *process) {
	t.Helper()
	tg, _ := prepared(t, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	inst, err := tg.Start(context.Background(), specFor(t, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	var id serviceIdentity
	if err := json.Unmarshal([]byte(get(t, inst.BaseURL()+"/whoami")), &id); err != nil {
		t.Fatal(err)
	}
	return id, inst.(*process)
}

// TestServiceNeverRunsAsRoot: under sudo the service runs as the invoking
// user, with no supplementary groups, and cannot loosen its own cgroup.
// SUDO_UID and SUDO_GID stand in for sudo here; scripts/vm/suite.sh runs
// the same test through a real `sudo -n` as the runner user.
func TestServiceNeverRunsAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the privilege drop happens when perfgate is root")
	}
	uid, gid := 4242, 4243
	if os.Getenv("SUDO_UID") != "" && os.Getenv("SUDO_UID") != "0" {
		if _, err := fmt.Sscan(os.Getenv("SUDO_UID")+" "+os.Getenv("SUDO_GID"), &uid, &gid); err != nil {
			t.Fatalf("SUDO_UID %q, SUDO_GID %q: %v", os.Getenv("SUDO_UID"), os.Getenv("SUDO_GID"), err)
		}
	} else {
		t.Setenv("SUDO_UID", fmt.Sprint(uid))
		t.Setenv("SUDO_GID", fmt.Sprint(gid))
	}
	id, p := startAndAsk(t)
	if want := fmt.Sprintf("%d %d %d %d", uid, uid, uid, uid); id.Status["Uid"] != want {
		t.Errorf("service Uid: %q, want %q (real, effective, saved, fs)", id.Status["Uid"], want)
	}
	if want := fmt.Sprintf("%d %d %d %d", gid, gid, gid, gid); id.Status["Gid"] != want {
		t.Errorf("service Gid: %q, want %q", id.Status["Gid"], want)
	}
	if id.Status["Groups"] != "" {
		t.Errorf("service keeps supplementary groups %q; root's must be cleared", id.Status["Groups"])
	}
	if p.group != nil && id.CgroupWriteError == "" {
		t.Errorf("the service could open its own cgroup's %s for writing: it could lift its CPU limit", id.CgroupLimitFile)
	} else if p.group != nil && !strings.Contains(id.CgroupWriteError, "permission denied") {
		t.Errorf("writing %s failed, but not for lack of permission: %s", id.CgroupLimitFile, id.CgroupWriteError)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(id.Dir, &st); err != nil || int(st.Uid) != uid || st.Mode&0o777 != 0o700 {
		t.Errorf("working directory %s: owner %d mode %o, %v; want the service's own (%d), 0700", id.Dir, st.Uid, st.Mode&0o777, err, uid)
	}
}

// TestServiceGetsAPrivateDirectoryAndOnlyItsEnvironment: nothing of
// perfgate's environment (on a runner: GITHUB_*, ACTIONS_*, INPUT_*,
// RUNNER_*) reaches the service; it gets PATH, HOME and TMPDIR (its own
// directory), GOMAXPROCS and service.env.
func TestServiceGetsAPrivateDirectoryAndOnlyItsEnvironment(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	t.Setenv("INPUT_TOKEN", "ghs_secret")
	t.Setenv("ACTIONS_RUNTIME_TOKEN", "secret")
	t.Setenv("RUNNER_TEMP", "/home/runner/work/_temp")
	id, p := startAndAsk(t)
	var keys []string
	for _, kv := range id.Env {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got, want := strings.Join(keys, " "), "GOMAXPROCS HOME PATH TMPDIR"; got != want {
		t.Errorf("service environment has %s; want exactly %s", got, want)
	}
	cwd, _ := os.Getwd()
	if id.Dir == cwd || !strings.HasPrefix(filepath.Base(id.Dir), "perfgate-service-") {
		t.Errorf("service works in %s; want a private perfgate-service-* directory", id.Dir)
	}
	for _, kv := range id.Env {
		if kv == "HOME="+id.Dir || kv == "TMPDIR="+id.Dir {
			continue
		}
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			t.Errorf("%s: want the private directory %s", kv, id.Dir)
		}
	}
	p.Stop()
	if _, err := os.Stat(id.Dir); !os.IsNotExist(err) {
		t.Errorf("the service's directory %s outlives it: %v", id.Dir, err)
	}
}
