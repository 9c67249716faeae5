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

// holmSteps runs Holm's step-down at level alpha and says, per hypothesis,
// whether it is rejected and the level it was compared with: alpha/(m-r)
// for the r-th smallest p-value when rejected, and alpha/(m-R) for all
// the others, R being the number rejected (the level at which the
// step-down stopped). An interval whose bound is taken at that level
// excludes the null exactly when the test rejects it.
func holmSteps(p []float64, alpha float64) (rejected []bool, level []float64) {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	rejected, level = make([]bool, m), make([]float64, m)
	r := 0
	for ; r < m && p[order[r]] <= alpha/float64(m-r); r++ {
		rejected[order[r]] = true
		level[order[r]] = alpha / float64(m-r)
	}
	for _, i := range order[r:] {
		level[i] = alpha / float64(m-r)
	}
	return rejected, level
}
