package stats

import "sort"

// Holm adjusts p-values for testing several metrics at once (Holm's
// step-down method): adjusted p_(i) = max over j<=i of min(1, (m-j+1)·p_(j)).
// Comparing the adjusted values with alpha controls the family-wise error.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	adjusted := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		v := min(1, float64(m-rank)*p[i])
		running = max(running, v)
		adjusted[i] = running
	}
	return adjusted
}
