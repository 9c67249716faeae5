package stats

import (
	"slices"
	"sync"
	"testing"
)

// TestLowerTailIsSafeForConcurrentUse is the race detector's test of the
// one memory the package shares between goroutines, lowerTail's cache:
// the simulations that also drive it concurrently run without -race
// (simtest), so this is what keeps the cache checked there.
func TestLowerTailIsSafeForConcurrentUse(t *testing.T) {
	// Empty, so that the goroutines fill it and do not only read what
	// earlier tests cached.
	tails.Lock()
	tails.byN = nil
	tails.Unlock()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 4 + g%3; n <= 30; n++ {
				if got := lowerTail(n); !slices.Equal(got, computeLowerTail(n)) {
					t.Errorf("lowerTail(%d) differs from its computation", n)
					return
				}
			}
		}()
	}
	wg.Wait()
}
