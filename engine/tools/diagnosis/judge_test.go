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

// TestPlantedMatchesAClosureInlinedIntoItsCaller: the power plants'
// httpapi.planted makes a closure and is inlined into Register, so the
// profile names the closure "Register.planted.func*"; that is the planted
// function, and a same-named function of another package is not.
func TestPlantedMatchesAClosureInlinedIntoItsCaller(t *testing.T) {
	const fn = "example.com/svc/internal/httpapi.planted"
	for name, want := range map[string]bool{
		"example.com/svc/internal/httpapi.(*Server).Register.planted.func*": true,
		"example.com/svc/internal/httpapi.planted.func*":                    true,
		"example.com/svc/internal/httpapi.planted":                          true,
		"example.com/svc/internal/other.Register.planted.func*":             false,
		"example.com/svc/internal/httpapi.(*Server).Register.func*":         false,
		"example.com/svc/internal/httpapi.plantedHashes":                    false,
		"": false,
	} {
		if got := planted(name, fn); got != want {
			t.Errorf("planted(%q) = %v, want %v", name, got, want)
		}
	}
}
