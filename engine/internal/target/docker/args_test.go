package docker

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestRunArgsReachTheHostsDependencies: service.env reaches the container,
// and the container can name the host, where the job's service containers
// are published (a database URL with host.docker.internal). No engine
// needed: this is the command line.
func TestRunArgsReachTheHostsDependencies(t *testing.T) {
	tg := New(cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 256 << 20}, "")
	spec := target.Spec{
		Args: func(l config.Listen) []string { return []string{"-addr", l.Addr} },
		Env: func(config.Listen) []string {
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

// TestRunArgsKeepSecretsAndPublishPprof: a service.env_from value is
// passed by name only (docker takes it from its own environment), so it is
// in no command line or `docker run` error; a pprof listener of the
// service's own gets its address and a second published port.
func TestRunArgsKeepSecretsAndPublishPprof(t *testing.T) {
	const secret = "s3cr3t-value"
	tg := New(cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 256 << 20}, "")
	spec := target.Spec{
		Args:          func(l config.Listen) []string { return []string{"-addr", l.Addr, "-debug", l.PprofAddr} },
		Env:           func(config.Listen) []string { return []string{"A=1", "DB_PASSWORD=" + secret} },
		SeparatePprof: true,
		SecretEnv:     []string{"DB_PASSWORD"},
	}
	args := tg.runArgs("svc", "perfgate/service:x", spec)
	line := strings.Join(args, " ")
	if strings.Contains(line, secret) {
		t.Errorf("docker run %s shows the secret", line)
	}
	for _, want := range []string{"--env A=1", "--env DB_PASSWORD ", "--publish 127.0.0.1::6060", "perfgate/service:x -addr 0.0.0.0:8080 -debug 0.0.0.0:6060"} {
		if !strings.Contains(line, want) {
			t.Errorf("docker run %s lacks %q", line, want)
		}
	}
	if got := secretEnv(spec); !slices.Equal(got, []string{"DB_PASSWORD=" + secret}) {
		t.Errorf("secretEnv = %q, want only DB_PASSWORD", got)
	}
}
