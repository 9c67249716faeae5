package main

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// TestEveryConfigTargetCanBeMade: config.Targets is the one list of
// targets (flags, config checks and the Action's generated copy read it);
// perfgate must be able to make each, and no other.
func TestEveryConfigTargetCanBeMade(t *testing.T) {
	for _, name := range config.Targets {
		if targets[name] == nil {
			t.Errorf("config.Targets has %q, which perfgate cannot make", name)
		}
	}
	if len(targets) != len(config.Targets) {
		t.Errorf("perfgate makes %d targets, config.Targets lists %d: %v", len(targets), len(config.Targets), config.Targets)
	}
}
