// Package simtest marks the tests that are statistical simulations:
// thousands of simulated gates through pure arithmetic, which the race
// detector makes three to twenty times slower and in which it has nothing
// to find (the code they drive shares no memory between goroutines but
// what a test of its own checks under -race). scripts/test.sh runs the
// unit tests with -race and skips these there, then runs the packages
// that hold them again without it (SimulationPackages).
package simtest

import "testing"

// Simulation skips the test in a race-detector build, saying where it runs.
func Simulation(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("a statistical simulation: it runs without -race (scripts/test.sh, engine: statistical simulations)")
	}
}
