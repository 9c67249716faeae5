package docker

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestRunArgsReachTheHostsDependencies: service.env reaches the container,
// and the container can name the host, where the job's service containers
// are published (a database URL with host.docker.internal). No engine
// needed: this is the command line.
func TestRunArgsReachTheHostsDependencies(t *testing.T) {
	tg := New(cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 256 << 20}, "")
	spec := target.Spec{
		Args: func(addr string, port int) []string { return []string{"-addr", addr} },
		Env: func(addr string, port int) []string {
			return []string{"DATABASE_URL=postgres://app@host.docker.internal:5432/app"}
		},
	}
	args := tg.runArgs("svc", "perfgate/service:x", spec)
	line := strings.Join(args, " ")
	for _, want := range [][]string{
		{"--env", "DATABASE_URL=postgres://app@host.docker.internal:5432/app"},
		{"--add-host", "host.docker.internal:host-gateway"},
	} {
		i := slices.Index(args, want[1])
		if i < 1 || args[i-1] != want[0] {
			t.Errorf("docker run %s lacks %s %s", line, want[0], want[1])
		}
	}
	if i := slices.Index(args, "perfgate/service:x"); i < 0 || !slices.Equal(args[i+1:], []string{"-addr", "0.0.0.0:8080"}) {
		t.Errorf("docker run %s: the image must come after every option, then the service's args", line)
	}
}
