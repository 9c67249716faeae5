package session

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/engine/internal/experiment"
	"github.com/perfgate/perfgate/engine/internal/target/targettest"
)

// TestMeasurementIsOneLogGroupOnGitHub: with --log-format github the
// measurement's lines are folded in one group, each pair's line says the
// time elapsed and left; the plain format prints no workflow command.
func TestMeasurementIsOneLogGroupOnGitHub(t *testing.T) {
	for _, format := range []string{LogGitHub, LogPlain} {
		t.Run(format, func(t *testing.T) {
			tg := &targettest.Fake{CPUPerRequest: map[string]time.Duration{experiment.Base: 100 * time.Microsecond, experiment.Head: 100 * time.Microsecond}}
			var stdout strings.Builder
			gateOnFake(t, tg, 2, func(g *invocation) { g.logFormat, g.stdout = format, &stdout })
			log := stdout.String()
			grouped := strings.Contains(log, "::group::perfgate: measure (2 pairs of 1s)\n") && strings.HasSuffix(log, "::endgroup::\n")
			if grouped != (format == LogGitHub) {
				t.Errorf("log format %s, grouped %v:\n%s", format, grouped, log)
			}
			if !strings.Contains(log, "elapsed, about ") || !strings.Contains(log, "s elapsed]") {
				t.Errorf("the pairs' lines lack the time elapsed and left:\n%s", log)
			}
		})
	}
}
