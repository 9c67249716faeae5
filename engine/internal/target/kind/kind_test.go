package kind

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// fakeKind puts a `kind` on PATH that records its command lines in the
// returned log and behaves as told: `get clusters` prints clusters, and
// `create cluster` fails the first failCreates times. kind itself cannot
// create a cluster on this machine (its node image cannot be pulled); the
// real thing runs in .github/workflows/kind.yml.
func fakeKind(t *testing.T, clusters string, failCreates int) (logPath string) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("the kind target checks for the docker command")
	}
	dir := t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	script := `#!/bin/sh
echo "$*" >> "` + logPath + `"
case "$1 $2" in
"get clusters") printf '%s\n' ` + clusters + ` ;;
"create cluster")
  n=$(grep -c '^create cluster' "` + logPath + `")
  if [ "$n" -le ` + strconv.Itoa(failCreates) + ` ]; then echo "ERROR: failed to create cluster: node image pull timed out" >&2; exit 1; fi ;;
"export logs") mkdir -p "$3" && echo kubelet log > "$3/kubelet.log" ;;
esac
exit 0
`
	if err := os.WriteFile(filepath.Join(dir, "kind"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The fake is on a PATH root would not take it from.
	findTool = exec.LookPath
	t.Cleanup(func() { findTool = privilege.Tool })
	return logPath
}

func calls(t *testing.T, logPath string) []string {
	data, _ := os.ReadFile(logPath)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func newTarget(logDir string) *Target {
	return New(&config.Config{Kind: config.Kind{NodeImage: "kindest/node:v1.32.0"}}, cgroup.Limits{CPUMillicores: 500, MemoryBytes: 64 << 20}, logDir)
}

// update rewrites testdata/cluster-config.yaml from clusterConfig.
var update = flag.Bool("update", false, "rewrite testdata/cluster-config.yaml from clusterConfig")

// TestClusterConfigKeepsTheAPIServerOnLoopbackWithoutDNS: the cluster the
// kind target makes, as testdata/cluster-config.yaml holds it (for the node
// image kindest/node:v1.32.0). scripts/kind/smoke.sh makes its cluster from
// that file, so the smoke test checks the cluster the target makes.
func TestClusterConfigKeepsTheAPIServerOnLoopbackWithoutDNS(t *testing.T) {
	data, err := clusterConfig(config.Kind{NodeImage: "kindest/node:v1.32.0"})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "cluster-config.yaml")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want) {
		t.Errorf("config:\n%s\nwant (%s; go test -update rewrites it):\n%s", data, golden, want)
	}
	for _, line := range []string{"apiServerAddress: 127.0.0.1", "- addon/coredns", "image: kindest/node:v1.32.0"} {
		if !strings.Contains(string(data), line) {
			t.Errorf("config lacks %q:\n%s", line, data)
		}
	}
	if data, _ := clusterConfig(config.Kind{}); strings.Contains(string(data), "image:") {
		t.Errorf("without node_image the config should leave kind's default: %s", data)
	}
}

func TestStaleClustersAreDeadPerfgateRunsOfThisHostOnly(t *testing.T) {
	judge := owner.Judge{Host: "a1b2c3d4e5f6", Alive: func(pid int) bool { return pid == 100 }}
	list := strings.Join([]string{
		"kind",
		"perfgate-a1b2c3d4e5f6-100-aaaaaa", // ours, alive
		"perfgate-a1b2c3d4e5f6-200-bbbbbb", // ours, dead
		"perfgate-0f0f0f0f0f0f-200-cccccc", // another runner's on the same daemon
		"perfgate-123456789012-200-dddddd", // another runner's, all digits
		"perfgate-200-eeeeee",              // no host identity (an older perfgate)
		"perfgate-a1b2c3d4e5f6-notapid-cc",
		"my-perfgate-a1b2c3d4e5f6-300-dd",
		"perfgate-a1b2c3d4e5f6-300",
	}, "\n")
	got := staleClusters(list, judge)
	if strings.Join(got, ",") != "perfgate-a1b2c3d4e5f6-200-bbbbbb" {
		t.Errorf("stale clusters %v, want only perfgate-a1b2c3d4e5f6-200-bbbbbb", got)
	}
	self := owner.Owner{Host: "a1b2c3d4e5f6", PID: 4194304}
	name := clusterName(self)
	if !strings.HasPrefix(name, "perfgate-a1b2c3d4e5f6-4194304-") || len(name) > 41 {
		t.Errorf("cluster name %q", name)
	}
	dead := owner.Judge{Host: self.Host, Alive: func(int) bool { return false }}
	if got := staleClusters(name, dead); len(got) != 1 {
		t.Errorf("a cluster named %q is not recognised as perfgate's own", name)
	}
}

// TestCreateIsRetriedOnceThenAnInfrastructureError: two failed creates
// give an error that is neither a configuration error nor a measurement,
// with kind's logs exported and the half-made cluster deleted each time.
func TestCreateIsRetriedOnceThenAnInfrastructureError(t *testing.T) {
	logPath := fakeKind(t, "", 2)
	logDir := t.TempDir()
	tg := newTarget(logDir)
	_, err := tg.Prepare(context.Background())
	closeErr := tg.Close()
	var ce *target.ConfigError
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), "could not be created twice") ||
		!strings.Contains(err.Error(), "node image pull timed out") || !strings.Contains(err.Error(), "kind-logs") {
		t.Fatalf("error %v, want an infrastructure error with kind's message and logs", err)
	}
	if _, statErr := os.Stat(filepath.Join(logDir, "kind-logs", "kubelet.log")); statErr != nil {
		t.Errorf("kind's logs were not exported: %v", statErr)
	}
	got := calls(t, logPath)
	want := []string{"get clusters", "create cluster", "delete cluster", "create cluster", "export logs", "delete cluster"}
	if len(got) != len(want) {
		t.Fatalf("kind was called %q, want %v", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("call %d: %q, want %s…", i, got[i], w)
		}
	}
	if !strings.Contains(got[1], "--name "+tg.cluster) || !strings.Contains(got[1], "--config ") || !strings.Contains(got[1], "--kubeconfig ") {
		t.Errorf("create command line %q", got[1])
	}
	if closeErr != nil {
		t.Errorf("Close: %v", closeErr)
	}
}

// TestClusterIsDeletedWhenTheKubernetesStepFails: the cluster is created,
// the kubernetes target then fails (the fake kind wrote no kubeconfig), and
// Close still deletes the cluster.
func TestClusterIsDeletedWhenTheKubernetesStepFails(t *testing.T) {
	logPath := fakeKind(t, "", 0)
	tg := newTarget(t.TempDir())
	_, err := tg.Prepare(context.Background())
	if err == nil {
		t.Fatal("Prepare succeeded without a kubeconfig")
	}
	if err := tg.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	got := calls(t, logPath)
	if last := got[len(got)-1]; last != "delete cluster --name "+tg.cluster {
		t.Errorf("last kind call %q, want the cluster deleted; calls %q", last, got)
	}
	if _, err := os.Stat(tg.workDir); !os.IsNotExist(err) {
		t.Errorf("work directory %s left behind", tg.workDir)
	}
}

// TestSweepDeletesClustersOfDeadRuns lists a dead run's cluster, a live
// run's (this process), one of the same PID on another host sharing the
// daemon, and someone else's: only the first is deleted.
func TestSweepDeletesClustersOfDeadRuns(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadName := "perfgate-" + owner.Owner{Host: owner.Host(), PID: dead.Process.Pid}.String() + "-abcdef"
	liveName := "perfgate-" + owner.Self().String() + "-123456"
	otherHost := "perfgate-" + owner.Owner{Host: "0f0f0f0f0f0f", PID: dead.Process.Pid}.String() + "-abcdef"
	logPath := fakeKind(t, deadName+" "+liveName+" "+otherHost+" dev", 0)
	tg := newTarget(t.TempDir())
	_, _ = tg.Prepare(context.Background())
	tg.Close()
	var deleted []string
	for _, c := range calls(t, logPath) {
		if strings.HasPrefix(c, "delete cluster --name ") {
			deleted = append(deleted, strings.TrimPrefix(c, "delete cluster --name "))
		}
	}
	if len(deleted) != 2 || deleted[0] != deadName || deleted[1] != tg.cluster {
		t.Errorf("deleted %v, want the dead run's %s then this run's own", deleted, deadName)
	}
}

// TestTheSnapshotterIsReadFromContainerdsConfig: the CRI plugin's
// snapshotter in a config dump, version 2 (testdata/containerd-config-v2.toml:
// `containerd config dump` in a node of scripts/kind's image, containerd
// 1.6) and 3 (containerd 2's rendering, with ' quotes); a snapshotter in
// another table is not it; a dump without one is not read.
func TestTheSnapshotterIsReadFromContainerdsConfig(t *testing.T) {
	v2, err := os.ReadFile("testdata/containerd-config-v2.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dump, want string
	}{
		{"version 2, this node image's", string(v2), "overlayfs"},
		{"version 3", "version = 3\n[plugins]\n  [plugins.'io.containerd.cri.v1.images']\n    snapshotter = 'native'\n    disable_snapshot_annotations = true\n", "native"},
		{"another table's first", "version = 2\n[[plugins.\"io.containerd.transfer.v1.local\".unpack_config]]\n  snapshotter = \"stargz\"\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"fuse-overlayfs\"\n", "fuse-overlayfs"},
		{"none", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  snapshotter = \"\"\n", ""},
		{"empty", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"\"\n", ""},
	} {
		got, ok := criSnapshotter(tc.dump)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestImagesAreImportedIntoTheNode(t *testing.T) {
	got := strings.Join(importArgs("/usr/bin/docker", nodeName("perfgate-1-aa"), "overlayfs"), " ")
	if got != "/usr/bin/docker exec -i perfgate-1-aa-control-plane ctr --namespace=k8s.io images import --all-platforms --digests --snapshotter=overlayfs -" {
		t.Errorf("load command %q", got)
	}
	got = strings.Join(kindLoadArgs("/usr/local/bin/kind", "perfgate-1-aa"), " ")
	if got != "/usr/local/bin/kind load image-archive {archive} --name perfgate-1-aa" {
		t.Errorf("kind's own load command %q", got)
	}
}

// TestRootRunsNoKindFromTheGivenPath: as root, a `kind` planted earlier on
// PATH (a directory the job's user can write, as a pull request's build
// could) never runs; only one root alone can change does.
func TestRootRunsNoKindFromTheGivenPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the secure PATH applies to root only")
	}
	perfgates := findTool
	logPath := fakeKind(t, "", 0)
	findTool = perfgates
	planted := filepath.Join(filepath.Dir(logPath), "kind")
	// The target's own lookup: a real kind (CI installs one in
	// /usr/local/bin) or none, never the planted one.
	if found, err := findTool("kind"); err == nil && found == planted {
		t.Fatalf("root found kind at %s, the directory planted on PATH", found)
	}
	if _, err := privilege.Tool("kind"); err == nil {
		// A real kind: Prepare would create a cluster with it; the lookup
		// above is what decides which kind runs.
		return
	}
	tg := newTarget(t.TempDir())
	_, _ = tg.Prepare(context.Background())
	tg.Close()
	if _, err := os.Stat(logPath); err == nil {
		t.Errorf("root ran the kind planted on PATH: %q", calls(t, logPath))
	}
}
