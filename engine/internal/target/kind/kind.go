// Package kind runs the service on a kind cluster that perfgate creates
// for the gate and deletes afterwards: a uniquely named single-node
// cluster from a generated config (API server on 127.0.0.1), images
// imported into the node's containerd (image_load.go), then exactly the
// kubernetes target, which drives the pods from inside the node's network
// namespace when it may enter it (node_network.go). Creating the cluster
// is infrastructure: it is retried once, and a second failure is an
// infrastructure error with kind's logs exported, never a measurement.
package kind

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/netns"
	"github.com/perfgate/perfgate/engine/internal/owner"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
	"github.com/perfgate/perfgate/engine/internal/target/kubernetes"
)

// namePrefix starts every cluster perfgate creates; the rest of the name
// is perfgate's pid and a random suffix, so a later perfgate on the same
// machine can tell a dead run's cluster (pid gone) from a live one's.
const namePrefix = "perfgate-"

// createTimeout bounds one `kind create cluster`, node readiness included.
const createTimeout = 5 * time.Minute

// findTool finds kind and docker: as root, only where root alone can
// change them (privilege.Tool). Tests with a fake kind on PATH replace it.
var findTool = privilege.Tool

// Target is the kind target. The zero value is not usable; call New.
type Target struct {
	*kubernetes.Target
	settings config.Kind
	kind     string // path of the kind command
	cluster  string
	workDir  string
	logDir   string // where kind's logs go when the cluster fails
	created  bool
	// network is the node's network namespace, from which perfgate
	// drives the pods (node_network.go); nil when it could not be opened.
	network *netns.Namespace
}

// New returns a kind target; logDir receives kind's logs (kind export
// logs) when creating the cluster fails.
func New(cfg *config.Config, limits cgroup.Limits, logDir string) *Target {
	return &Target{settings: cfg.Kind, logDir: logDir,
		Target: kubernetes.New("kind", config.Kubernetes{}, limits, cfg.Service.Env)}
}

func (t *Target) Name() string { return "kind" }

// Prepare sweeps clusters of dead perfgate runs, creates this run's
// cluster (retrying once) and prepares the kubernetes target on it.
func (t *Target) Prepare(ctx context.Context) (target.Environment, error) {
	env := target.Environment{Target: "kind"}
	var err error
	if t.kind, err = findTool("kind"); errors.Is(err, exec.ErrNotFound) {
		return env, &target.ConfigError{Err: fmt.Errorf("target kind: the kind command is not installed (%w); install it (https://kind.sigs.k8s.io/docs/user/quick-start/#installation; GitHub's ubuntu runners have it) or use target: docker", err)}
	} else if err != nil {
		return env, &target.ConfigError{Err: fmt.Errorf("target kind: %w", err)}
	}
	// kind runs docker from the PATH it is given (privilege.ToolEnv);
	// perfgate runs it to hand images to the node.
	docker, err := findTool("docker")
	if errors.Is(err, exec.ErrNotFound) {
		return env, &target.ConfigError{Err: fmt.Errorf("target kind: kind runs its node in Docker, and the docker command is not installed (%w)", err)}
	} else if err != nil {
		return env, &target.ConfigError{Err: fmt.Errorf("target kind: %w", err)}
	}
	swept, err := Sweep(ctx, t.kind)
	warnings := swept.Warnings()
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	if t.workDir, err = os.MkdirTemp("", "perfgate-kind-"); err != nil {
		return env, err
	}
	t.cluster = clusterName(owner.Self())
	if err := t.create(ctx); err != nil {
		return env, err
	}
	node := nodeName(t.cluster)
	load := kindLoadArgs(t.kind, t.cluster)
	if snapshotter, err := snapshotter(ctx, docker, node); err != nil {
		warnings = append(warnings, err.Error()+"; images go through kind load image-archive instead")
	} else {
		load = importArgs(docker, node, snapshotter)
	}
	t.Target.Configure(config.Kubernetes{
		Kubeconfig: filepath.Join(t.workDir, "kubeconfig"),
		ImageLoad:  load,
	})
	// Not root, the namespace cannot be opened, as expected
	// (node_network.go): the in-cluster generator drives the pods, as the
	// report's confinement says. As root, that is a surprise worth a
	// warning.
	if network, err := nodeNetwork(ctx, docker, node); err == nil {
		t.network = network
		t.Target.ReachPodsThrough(network)
	} else if os.Geteuid() == 0 {
		warnings = append(warnings, err.Error()+"; the in-cluster load generator drives the pods instead")
	}
	env, err = t.Target.Prepare(ctx)
	env.Warnings = append(env.Warnings, warnings...)
	env.Confinement = "kind cluster " + t.cluster + ", " + env.Confinement
	return env, err
}

// create runs `kind create cluster`, and once more after deleting the
// half-made cluster if the first attempt fails.
func (t *Target) create(ctx context.Context) error {
	configPath := filepath.Join(t.workDir, "kind.yaml")
	data, err := clusterConfig(t.settings)
	if err != nil {
		return err
	}
	if err := os.WriteFile(configPath, data, 0o644); err != nil {
		return err
	}
	var firstErr error
	for attempt := 1; attempt <= 2; attempt++ {
		t.created = true
		out, err := t.run(ctx, createTimeout, createArgs(t.cluster, configPath, filepath.Join(t.workDir, "kubeconfig"))...)
		if err == nil {
			return nil
		}
		err = fmt.Errorf("kind create cluster %s (attempt %d of 2): %w\n%s", t.cluster, attempt, err, target.TextTail(out, 3000))
		if ctx.Err() != nil {
			return err
		}
		if attempt == 1 {
			firstErr = err
			t.Warn("%v; retrying once", err)
			if err := t.delete(); err != nil {
				t.Warn("removing the half-made cluster before the retry: %v", err)
			}
			continue
		}
		logs := t.exportLogs()
		return fmt.Errorf("target kind: the cluster could not be created twice, which is an infrastructure problem, not a measurement: %w%s", errors.Join(firstErr, err), logs)
	}
	return nil
}

// Close deletes everything in the cluster (the kubernetes target), then
// the cluster itself.
func (t *Target) Close() error {
	err := t.Target.Close()
	if t.network != nil {
		err = errors.Join(err, t.network.Close())
	}
	if t.created {
		err = errors.Join(err, t.delete())
	}
	if t.workDir != "" {
		err = errors.Join(err, os.RemoveAll(t.workDir))
	}
	return err
}

func (t *Target) delete() error {
	out, err := t.run(context.Background(), 2*time.Minute, deleteArgs(t.cluster)...)
	if err != nil {
		return fmt.Errorf("kind delete cluster %s: %w\n%s", t.cluster, err, target.TextTail(out, 2000))
	}
	return nil
}

// exportLogs keeps kind's node logs of a cluster that failed, and says
// where they are.
func (t *Target) exportLogs() string {
	if t.logDir == "" {
		return ""
	}
	dir := filepath.Join(t.logDir, "kind-logs")
	if _, err := t.run(context.Background(), 2*time.Minute, "export", "logs", dir, "--name", t.cluster); err != nil {
		return ""
	}
	return "; kind's logs are in " + dir
}

// Sweep deletes the clusters of perfgate runs of this host identity whose
// perfgate is gone (killed before it could clean up; self-hosted runners
// keep them). Clusters of another host identity sharing the Docker daemon
// are never touched. It is the kind target's start-up sweep and part of
// `perfgate sweep`; kind is the kind command. The error says it could not
// list the clusters.
func Sweep(ctx context.Context, kind string) (owner.Swept, error) {
	var swept owner.Swept
	out, err := runTool(ctx, kind, time.Minute, "get", "clusters")
	if err != nil {
		return swept, fmt.Errorf("could not list kind clusters to remove leftovers of earlier perfgate runs: %w\n%s", err, target.TextTail(out, 1000))
	}
	for _, name := range staleClusters(out, owner.Local()) {
		if out, err := runTool(ctx, kind, 2*time.Minute, deleteArgs(name)...); err != nil {
			swept.Failed = append(swept.Failed, fmt.Errorf("could not delete kind cluster %s left by an earlier perfgate run: %w\n%s", name, err, target.TextTail(out, 1000)))
		} else {
			swept.Removed = append(swept.Removed, "kind cluster "+name)
		}
	}
	return swept, nil
}

func (t *Target) run(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	return runTool(ctx, t.kind, timeout, args...)
}

// runTool runs tool (kind, or docker) with args and returns its output,
// stdout and stderr together.
func runTool(ctx context.Context, tool string, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Env = privilege.ToolEnv()
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil && ctx.Err() == context.Canceled {
		err = ctx.Err() // interrupted, not the tool's failure
	}
	return out.String(), err
}

// clusterName is perfgate-<host>-<pid>-<random> (at most 41 characters;
// kind's node container adds "-control-plane").
func clusterName(o owner.Owner) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s%s-%s", namePrefix, o, hex.EncodeToString(b))
}

// staleClusters picks, from `kind get clusters` output, perfgate's clusters
// that judge finds stale: of its host identity, their perfgate gone.
func staleClusters(list string, judge owner.Judge) []string {
	var stale []string
	for _, name := range strings.Fields(list) {
		rest, ok := strings.CutPrefix(name, namePrefix)
		if !ok {
			continue
		}
		o, suffix, ok := owner.Cut(rest)
		if !ok || !isHex(suffix) || !judge.Stale(o) {
			continue
		}
		stale = append(stale, name)
	}
	return stale
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return s != "" && err == nil && strings.ToLower(s) == s
}

// withoutDNS is a kubeadm patch that skips the CoreDNS add-on. perfgate
// reaches every pod and Service by address, never by name, so CoreDNS's
// two pods would only share the node's CPUs with the services measured;
// and the offline node image (scripts/kind) has no CoreDNS image. kind
// itself skips preflight (it pre-loads the images), and a patch replaces
// the whole list, so preflight stays in it.
const withoutDNS = `kind: InitConfiguration
skipPhases:
  - preflight
  - addon/coredns
`

// clusterConfig is the kind config: one control-plane node, the API server
// on loopback only, no cluster DNS, and the node image when configured.
func clusterConfig(k config.Kind) ([]byte, error) {
	type node struct {
		Role  string `yaml:"role"`
		Image string `yaml:"image,omitempty"`
	}
	type networking struct {
		APIServerAddress string `yaml:"apiServerAddress"`
	}
	return yaml.Marshal(struct {
		Kind                 string     `yaml:"kind"`
		APIVersion           string     `yaml:"apiVersion"`
		Networking           networking `yaml:"networking"`
		KubeadmConfigPatches []string   `yaml:"kubeadmConfigPatches"`
		Nodes                []node     `yaml:"nodes"`
	}{
		Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4",
		Networking:           networking{APIServerAddress: "127.0.0.1"},
		KubeadmConfigPatches: []string{withoutDNS},
		Nodes:                []node{{Role: "control-plane", Image: k.NodeImage}},
	})
}

func createArgs(cluster, configPath, kubeconfig string) []string {
	return []string{"create", "cluster", "--name", cluster, "--config", configPath, "--kubeconfig", kubeconfig, "--wait", "3m"}
}

func deleteArgs(cluster string) []string {
	return []string{"delete", "cluster", "--name", cluster}
}
