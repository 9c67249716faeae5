package kind

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// The images go to the node the way `kind load image-archive` hands them
// over in the end, one `docker exec -i <node> ctr images import -` with
// the archive on its standard input, without what kind does first on
// every load: find the cluster's nodes and ask the node's containerd for
// its snapshotter (several docker commands). The node and the snapshotter
// do not change during a run, so Prepare asks once. A duet loads two
// images per round (docs/benchmarks.md, "Handing images to kind's node").

// nodeName is the node container of a single-node kind cluster.
func nodeName(cluster string) string { return cluster + "-control-plane" }

// snapshotter asks the node's containerd which snapshotter its CRI plugin
// unpacks images with (kind's entrypoint picks one for the host's file
// system: overlayfs, fuse-overlayfs, native), as kind's own load does.
func snapshotter(ctx context.Context, docker, node string) (string, error) {
	out, err := runTool(ctx, docker, time.Minute, "exec", node, "containerd", "config", "dump")
	if err != nil {
		return "", fmt.Errorf("target kind: could not read the containerd config of node %s (docker exec %s containerd config dump): %w\n%s", node, node, err, target.TextTail(out, 1000))
	}
	name, ok := criSnapshotter(out)
	if !ok {
		return "", fmt.Errorf("target kind: the containerd config of node %s names no snapshotter for its CRI plugin that perfgate can read", node)
	}
	return name, nil
}

// criSnapshotter finds the CRI plugin's snapshotter in a `containerd
// config dump`: in the table [plugins."io.containerd.grpc.v1.cri".containerd]
// of a version 2 config (containerd 1.x), [plugins.'io.containerd.cri.v1.images']
// of a version 3 one (containerd 2.x, which quotes with '). The dump is
// containerd's own rendering, one key per line under its table's header,
// so the lines are read without a TOML parser.
func criSnapshotter(dump string) (string, bool) {
	unquote := strings.NewReplacer(`"`, "", "'", "")
	table := ""
	scanner := bufio.NewScanner(strings.NewReader(dump))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if strings.HasPrefix(line, "[") {
			table = unquote.Replace(strings.Trim(line, "[]"))
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "snapshotter" {
			continue
		}
		if table == "plugins.io.containerd.grpc.v1.cri.containerd" || table == "plugins.io.containerd.cri.v1.images" {
			name := unquote.Replace(strings.TrimSpace(value))
			return name, name != ""
		}
	}
	return "", false
}

// importArgs is the kubernetes target's image_load for this cluster's
// node: the archive comes on the command's standard input.
func importArgs(docker, node, snapshotter string) []string {
	return []string{docker, "exec", "-i", node, "ctr", "--namespace=k8s.io", "images", "import",
		"--all-platforms", "--digests", "--snapshotter=" + snapshotter, "-"}
}

// kindLoadArgs is kind's own load, for a node whose snapshotter perfgate
// could not read.
func kindLoadArgs(kind, cluster string) []string {
	return []string{kind, "load", "image-archive", "{archive}", "--name", cluster}
}
