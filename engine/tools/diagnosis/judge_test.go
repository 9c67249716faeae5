package main

import (
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// TestLockPlantAtOneCPUExpectsTheShapeHint: at GOMAXPROCS 1 a global lock
// serialises nothing, so the lock plant's gate is judged on whether the
// report says contention cannot show; at 2 it must name the contention.
func TestLockPlantAtOneCPUExpectsTheShapeHint(t *testing.T) {
	rep := &report.Report{Verdict: "pass"}
	rep.Environment.GOMAXPROCS = 1
	if j := Judge("global-lock", rep, nil); j.Hint != shapeHint || j.Fired {
		t.Errorf("at GOMAXPROCS 1 without the shape hint: hint %q, fired %v; want %q not fired", j.Hint, j.Fired, shapeHint)
	}
	rep.ServiceHints = []report.Hint{{Rule: shapeHint}}
	if j := Judge("global-lock", rep, nil); !j.Fired {
		t.Error("the shape hint in the service hints must count as fired")
	}
	rep.Environment.GOMAXPROCS = 2
	if j := Judge("global-lock", rep, nil); j.Hint != "mutex-contention" || j.Fired {
		t.Errorf("at GOMAXPROCS 2: hint %q, fired %v; want mutex-contention not fired", j.Hint, j.Fired)
	}
}
