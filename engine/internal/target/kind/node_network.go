package kind

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/engine/internal/netns"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// kind's pods have IPs that only the node container's network namespace
// routes to (the host has no route to kind's pod network). To drive them
// from this machine, as the kubernetes target drives a local cluster's
// pods (load_from: auto), perfgate makes its connections from inside that
// namespace, which it opens by the node container's process. That needs
// root, as the run's placement on CPUs does; without it the in-cluster
// load generator drives the pods, as before.

// nodeNetwork opens the network namespace of node's container.
func nodeNetwork(ctx context.Context, docker, node string) (*netns.Namespace, error) {
	out, err := runTool(ctx, docker, time.Minute, "inspect", "--format", "{{.State.Pid}}", node)
	if err != nil {
		return nil, fmt.Errorf("target kind: could not find node %s's process (docker inspect): %w\n%s", node, err, target.TextTail(out, 1000))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid <= 0 {
		return nil, fmt.Errorf("target kind: docker inspect gave node %s's process as %q, not a running process's ID", node, strings.TrimSpace(out))
	}
	return netns.Open(fmt.Sprintf("/proc/%d/ns/net", pid), "kind node "+node+"'s network namespace")
}
