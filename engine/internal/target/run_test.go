package target

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

func TestRunNameCarriesItsOwner(t *testing.T) {
	run := NewRunName()
	if o, ok := RunOwner(run); !ok || o != owner.Self() {
		t.Errorf("RunOwner(%q) = %+v, %v; want this process %+v", run, o, ok, owner.Self())
	}
	if len(run) > 38 {
		t.Errorf("run name %q is longer than 38 characters", run)
	}
	for _, name := range []string{
		"perfgate-1a2b3c4d",                    // an older perfgate's: no owner
		"perfgate-a1b2c3d4e5f6-123-1a2b3c",     // a kind cluster's suffix, not a run's
		"perfgate-a1b2c3d4e5f6-123-1A2B3C4D",   // not as written
		"perfgate-a1b2c3d4e5f6-123-1a2b3c4d-0", // a Deployment of the run, not the run
		"default",
	} {
		if o, ok := RunOwner(name); ok {
			t.Errorf("RunOwner(%q) = %+v, want no owner", name, o)
		}
	}
}
