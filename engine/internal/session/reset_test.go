package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// TestResetNeedsATargetThatRunsIt: --target may choose a target after the
// file was checked, so loading checks service.reset against it again.
func TestResetNeedsATargetThatRunsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perfgate.yml")
	yml := "version: 1\nservice:\n  package: ./cmd/server\n  args: [-addr, \"{addr}\"]\n  reset: [psql, -f, reset.sql]\n"
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		want   string // in the error; "" loads
	}{
		{"", ""},
		{"local", ""},
		{"docker", ""},
		{"kind", "service.reset is not supported on target kind"},
		{"kubernetes", "gate with --target local or --target docker, or without service.reset"},
	} {
		cfg, err := loadConfig(path, tc.target, everyTarget())
		var ce *ConfigError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("--target %q: %v", tc.target, err)
		case tc.want == "" && len(cfg.Service.Reset) != 3:
			t.Errorf("--target %q: reset %q", tc.target, cfg.Service.Reset)
		case tc.want != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--target %q: err %v, want a configuration error containing %q", tc.target, err, tc.want)
		}
	}
}

// everyTarget has a maker for each name in config.Targets; the tests that
// use it never make one.
func everyTarget() Targets {
	targets := Targets{}
	for _, name := range config.Targets {
		targets[name] = func(*config.Config, cgroup.Limits, string) target.Target { panic("not made in this test") }
	}
	return targets
}
