package verdict

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/stats"
)

// A config whose gate could never fail is refused with the fix; the
// defaults and a workable fixed number of rounds are accepted.
func TestCheckPlan(t *testing.T) {
	cfg := config.Default()
	if err := CheckPlan("perfgate.yml", cfg); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
	cfg.Pairs, cfg.MaxPairs = 6, 6
	err := CheckPlan("perfgate.yml", cfg)
	var infeasible *stats.InfeasibleError
	if !errors.As(err, &infeasible) {
		t.Fatalf("pairs: 6 at alpha 0.01 accepted (err %v); its gate could never fail", err)
	}
	for _, want := range []string{"perfgate.yml", "pairs", "alpha 0.01", "cpu, allocs, bytes, errors, goroutines, heap", "pairs of at least"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	cfg.Pairs, cfg.MaxPairs = infeasible.Rounds, infeasible.Rounds
	if err := CheckPlan("perfgate.yml", cfg); err != nil {
		t.Errorf("the smallest workable pairs it named (%d) is refused too: %v", infeasible.Rounds, err)
	}
}

// Latency quantiles join the family when gate.latency is set.
func TestFamilyFollowsTheGate(t *testing.T) {
	cfg := config.Default()
	if got := strings.Join(Family(cfg), ","); got != "cpu,allocs,bytes,errors,goroutines,heap" {
		t.Errorf("family %s", got)
	}
	cfg.Gate.Latency = 0.2
	if got := len(Family(cfg)); got != 9 {
		t.Errorf("with gate.latency the family has %d metrics, want 9", got)
	}
}
