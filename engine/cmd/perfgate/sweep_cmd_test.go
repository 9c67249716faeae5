package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/gittest"
	"github.com/perfgate/perfgate/engine/internal/owner"
)

// TestSweepRemovesGoneOwnersGroupsOnly plants real cgroups next to a live
// group of this process: one of a perfgate that is gone, which `perfgate
// sweep` removes, and then one it cannot remove (it holds a child group),
// which makes it exit 1 naming it. --target local sweeps cgroups only:
// Docker, kind and Kubernetes are not touched.
func TestSweepRemovesGoneOwnersGroupsOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	h, err := cgroup.Detect()
	if err != nil {
		t.Skipf("no cgroup hierarchy: %v", err)
	}
	live, err := h.Create(cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := live.Remove(); err != nil {
			t.Error(err)
		}
	})
	var parents []string // one per hierarchy, where the live group is
	for _, f := range live.ProcsFiles() {
		parents = append(parents, filepath.Dir(filepath.Dir(f)))
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	gone := owner.Owner{Host: owner.Host(), PID: exited.Process.Pid}
	plant := func(name string) []string {
		var dirs []string
		for _, p := range parents {
			dir := filepath.Join(p, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(dir) })
			dirs = append(dirs, dir)
		}
		return dirs
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	sweep := func() (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"sweep", "--target", "local"}, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	dead := plant("perfgate-" + gone.String() + "-1")
	code, stdout, stderr := sweep()
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing\n%s", code, stderr, stdout)
	}
	for _, dir := range dead {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s, of a gone perfgate, survived the sweep\n%s", dir, stdout)
		}
		if !strings.Contains(stdout, "cgroups: removed cgroup "+dir+"\n") {
			t.Errorf("output does not list %s as removed:\n%s", dir, stdout)
		}
	}
	for _, f := range live.ProcsFiles() {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the live group went: %v", err)
		}
	}
	for _, other := range []string{"docker:", "kind:", "kubernetes:"} {
		if strings.Contains(stdout, other) {
			t.Errorf("--target local swept more than cgroups (%s):\n%s", other, stdout)
		}
	}

	stuck := plant("perfgate-" + gone.String() + "-2")
	child := filepath.Join(stuck[0], "child")
	if err := os.Mkdir(child, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(child) }) // runs before stuck's own removal
	code, stdout, stderr = sweep()
	if code != exitSweepLeftovers || !strings.Contains(stderr, "cgroups: FAILED: could not remove cgroup "+stuck[0]) {
		t.Errorf("exit %d, stderr %q; want %d naming %s\n%s", code, stderr, exitSweepLeftovers, stuck[0], stdout)
	}
}

// TestSweepLoadsNoKubeconfigForAnotherTarget: the Action's post step runs
// `sudo perfgate sweep --config <the pull request's perfgate.yml>`. A
// config of target local that names a hostile kubeconfig (its exec plugin
// touches a file) must not make the sweep connect to a cluster: only
// target kubernetes sweeps one. For target kubernetes, the kubernetes
// target's refusal of such a kubeconfig under root applies to the sweep
// too.
func TestSweepLoadsNoKubeconfigForAnotherTarget(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "plugin-ran")
	kubeconfig := filepath.Join(dir, "kubeconfig")
	data, err := os.ReadFile("../../internal/target/kubernetes/testdata/kubeconfig-exec-plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kubeconfig, []byte(strings.ReplaceAll(string(data), "MARKER", marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	configFor := func(target string) string {
		path := filepath.Join(dir, target+".yml")
		body := "version: 1\nservice:\n  package: ./cmd/server\n  args: [\"-addr\", \"{addr}\"]\ntarget: " + target + "\nkubernetes:\n  kubeconfig: " + kubeconfig + "\n" +
			"  image_load: [\"true\"]\nload:\n  rate: 10\n  requests: [GET /]\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Neither Docker nor kind is reached: nothing of them is installed
	// on the PATH this test gives, nor (for root) on the secure one, or
	// DOCKER_HOST points nowhere.
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(dir, "nobody.sock"))
	for _, c := range []struct {
		args []string
		kube bool // the sweep looks at a cluster
	}{
		{[]string{"sweep", "--config", configFor("local")}, false},
		{[]string{"sweep", "--config", configFor("docker")}, false},
		{[]string{"sweep", "--target", "local", "--config", configFor("kubernetes")}, false},
		{[]string{"sweep", "--config", configFor("kubernetes")}, true},
	} {
		var stdout, stderr bytes.Buffer
		run(context.Background(), c.args, &stdout, &stderr)
		if !strings.Contains(stdout.String(), "cgroups:") {
			t.Fatalf("%v did not sweep:\n%s%s", c.args, stdout.String(), stderr.String())
		}
		if got := strings.Contains(stdout.String(), "kubernetes:"); got != c.kube {
			t.Errorf("%v: swept a cluster %v, want %v\n%s%s", c.args, got, c.kube, stdout.String(), stderr.String())
		}
		if os.Geteuid() == 0 || !c.kube {
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%v ran the kubeconfig's exec plugin:\n%s%s", c.args, stdout.String(), stderr.String())
			}
		}
		if c.kube && os.Geteuid() == 0 && !strings.Contains(stdout.String(), `user "plugin" with exec "/bin/sh"`) {
			t.Errorf("%v: as root, the sweep does not say why it refused the kubeconfig:\n%s", c.args, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"sweep", "--target", "cloud"}, &stdout, &stderr); code != exitConfig || !strings.Contains(stderr.String(), `--target "cloud" is not a target`) {
		t.Errorf("--target cloud: exit %d, %s", code, stderr.String())
	}
}

// TestSweepTakesTheTargetFromTheBase is the post step's sweep after a gate
// with --base: the base's perfgate.yml measured on local, and the pull
// request's sets target: kubernetes with a kubeconfig whose exec plugin
// leaves a mark. The gate measured on local (the target is part of the
// base's plan), so the sweep with --base looks at no cluster and loads no
// kubeconfig; a base whose perfgate.yml says kubernetes is swept as such,
// and a base without the file leaves head's target, as the gate did.
func TestSweepTakesTheTargetFromTheBase(t *testing.T) {
	repo := t.TempDir()
	marker := filepath.Join(t.TempDir(), "plugin-ran")
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	data, err := os.ReadFile("../../internal/target/kubernetes/testdata/kubeconfig-exec-plugin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kubeconfig, []byte(strings.ReplaceAll(string(data), "MARKER", marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(repo, "perfgate.yml")
	write := func(target string) {
		body := "version: 1\nservice:\n  package: ./cmd/server\n  args: [\"-addr\", \"{addr}\"]\ntarget: " + target + "\nkubernetes:\n  kubeconfig: " + kubeconfig + "\n" +
			"  image_load: [\"true\"]\nload:\n  rate: 10\n  requests: [GET /]\n"
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := gittest.In(t, repo)
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "no perfgate.yml yet")
	without := git("rev-parse", "HEAD")
	write("local")
	git("add", "perfgate.yml")
	git("commit", "-q", "-m", "measured on local")
	onLocal := git("rev-parse", "HEAD")
	write("kubernetes")
	git("commit", "-q", "-am", "measured on kubernetes")
	onKubernetes := git("rev-parse", "HEAD")
	// The pull request's copy: kubernetes, uncommitted as in a checkout.
	write("kubernetes")
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(repo, "nobody.sock"))
	for _, c := range []struct {
		base string
		kube bool
	}{
		{onLocal, false},
		{onKubernetes, true},
		{without, true},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"sweep", "--config", config, "--base", c.base}, &stdout, &stderr)
		if !strings.Contains(stdout.String(), "cgroups:") {
			t.Fatalf("--base %s: exit %d, did not sweep:\n%s%s", c.base[:7], code, stdout.String(), stderr.String())
		}
		if got := strings.Contains(stdout.String(), "kubernetes:"); got != c.kube {
			t.Errorf("--base %s: swept a cluster %v, want %v\n%s%s", c.base[:7], got, c.kube, stdout.String(), stderr.String())
		}
		if !c.kube {
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("--base %s ran the pull request's kubeconfig's exec plugin", c.base[:7])
			}
		}
	}
	// The same checkout reached through a link (a runner's workspace
	// can be): still the base's target.
	link := filepath.Join(t.TempDir(), "workspace")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	{
		var stdout, stderr bytes.Buffer
		run(context.Background(), []string{"sweep", "--config", filepath.Join(link, "perfgate.yml"), "--base", onLocal}, &stdout, &stderr)
		if !strings.Contains(stdout.String(), "cgroups:") || strings.Contains(stdout.String(), "kubernetes:") {
			t.Errorf("through a link: want the base's local target\n%s%s", stdout.String(), stderr.String())
		}
	}
	// A base that cannot be read (not fetched, or not a revision at all)
	// leaves the gate's target unknown: no cluster, not head's target.
	for _, base := range []string{"--upload-pack=x", strings.Repeat("f", 40)} {
		var stdout, stderr bytes.Buffer
		run(context.Background(), []string{"sweep", "--config", config, "--base", base}, &stdout, &stderr)
		if !strings.Contains(stdout.String(), "cgroups:") || strings.Contains(stdout.String(), "kubernetes:") || !strings.Contains(stderr.String(), "not a cluster") {
			t.Errorf("--base %s: want cgroups, Docker and kind swept, no cluster, and why\n%s%s", base, stdout.String(), stderr.String())
		}
		if base == "--upload-pack=x" && !strings.Contains(stderr.String(), "which git would read as an option") {
			t.Errorf("--base %s: %s", base, stderr.String())
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("--base %s ran the pull request's kubeconfig's exec plugin", base)
		}
	}
}
