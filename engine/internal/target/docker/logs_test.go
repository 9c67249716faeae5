package docker

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestContainerLogsAreRotated: the daemon keeps a container's log in its
// own files, which a service flooding stdout would grow without end; the
// json-file driver's rotation bounds them. No engine needed: this checks
// the command line; the tests with an engine run it for real.
func TestContainerLogsAreRotated(t *testing.T) {
	tg := New(cgroup.Limits{CPUMillicores: 1000, MemoryBytes: 64 << 20}, "")
	spec := target.Spec{
		Args: func(config.Listen) []string { return nil },
		Env:  func(config.Listen) []string { return nil },
	}
	args := strings.Join(tg.runArgs("svc", "image:tag", spec), " ")
	for _, want := range []string{"--log-driver json-file", "--log-opt max-size=2m", "--log-opt max-file=2"} {
		if !strings.Contains(args, want) {
			t.Errorf("docker run lacks %q: %s", want, args)
		}
	}
	if i := slices.Index(strings.Fields(args), "image:tag"); i < 0 || strings.Contains(strings.Join(strings.Fields(args)[i:], " "), "--log-opt") {
		t.Errorf("the log options must come before the image: %s", args)
	}
}
