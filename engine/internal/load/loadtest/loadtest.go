// Package loadtest holds what tests of real attacks may expect of vegeta's
// pacing.
package loadtest

// AllSent reports whether an attack that sent got requests sent all of the
// want its rate and duration schedule. vegeta checks the elapsed time
// against the duration before each tick (lib/attack.go), so when the tick
// before the last comes late, as it does on a loaded machine or under the
// race detector, the last is not sent: one short is all sent, two short is
// not.
func AllSent[N ~int | ~int64 | ~uint64](got, want N) bool {
	return got == want || got+1 == want
}
