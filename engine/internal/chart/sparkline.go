// Package chart draws a metric's nightly history: SVG charts that need no
// JavaScript, and unicode sparklines for Markdown, where GitHub renders no
// SVG.
package chart

import (
	"math"
	"strings"
)

var bars = []rune("▁▂▃▄▅▆▇█")

// Sparkline is values as ▁▂▃▄▅▆▇█ between their minimum and maximum; all
// equal values are ▄, and a value that is not a number is a space.
func Sparkline(values []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(bars[3])
		default:
			b.WriteRune(bars[int(math.Round((v-lo)/(hi-lo)*float64(len(bars)-1)))])
		}
	}
	return b.String()
}
