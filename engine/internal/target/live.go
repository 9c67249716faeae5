package target

import "sync"

// Live is the set of a target's instances still running, so that Close
// can stop whatever a failed or interrupted experiment left. The zero
// value is ready to use.
type Live[T comparable] struct {
	mu  sync.Mutex
	set map[T]bool
}

// Track adds v (alive) or removes it.
func (l *Live[T]) Track(v T, alive bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set == nil {
		l.set = map[T]bool{}
	}
	if alive {
		l.set[v] = true
	} else {
		delete(l.set, v)
	}
}

// Each calls stop on every instance still tracked, outside the lock (stop
// usually untracks it).
func (l *Live[T]) Each(stop func(T)) {
	l.mu.Lock()
	var all []T
	for v := range l.set {
		all = append(all, v)
	}
	l.mu.Unlock()
	for _, v := range all {
		stop(v)
	}
}
