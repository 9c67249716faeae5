package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The drawing helpers of report.html's Rounds charts (rounds.go).

// legendLine is a short line in colour followed by its label.
func legendLine(b *strings.Builder, x, y float64, colour, dash, text string) {
	dashes := ""
	if dash != "" {
		dashes = " stroke-dasharray=\"" + dash + "\""
	}
	fmt.Fprintf(b, "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%s\" y=\"%s\">%s</text>\n",
		n1(x), n1(x+22), n1(y), n1(y), colour, dashes, n1(x+28), n1(y+4), text)
}

// niceAxis widens [lo, hi] to round ticks (steps of 1, 2 or 5 times a
// power of ten, about want of them) and returns the ticks and the bounds.
func niceAxis(lo, hi float64, want int) (ticks []float64, low, high float64) {
	if !finite(lo, hi) || math.Abs(lo) > 1e12 || math.Abs(hi) > 1e12 {
		lo, hi = -1, 1 // only a corrupt report gets here
	}
	if !(hi > lo) {
		lo, hi = lo-1, hi+1
	}
	raw := (hi - lo) / float64(want)
	magnitude := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * magnitude
	for _, f := range []float64{1, 2, 5} {
		if f*magnitude >= raw {
			step = f * magnitude
			break
		}
	}
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	for i := first; i <= last; i++ {
		t := i * step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		ticks = append(ticks, t)
	}
	return ticks, first * step, last * step
}

// tickLabel shows a tick with as many decimals as the step needs.
func tickLabel(t float64, ticks []float64) string {
	decimals := 0
	if len(ticks) > 1 {
		decimals = max(0, -int(math.Floor(math.Log10(ticks[1]-ticks[0])+1e-9)))
	}
	return strconv.FormatFloat(t, 'f', decimals, 64)
}

// signedTick is tickLabel with a plus sign above zero.
func signedTick(t float64, ticks []float64) string {
	if t > 0 {
		return "+" + tickLabel(t, ticks)
	}
	return tickLabel(t, ticks)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// n1 is an SVG coordinate, to a tenth of a pixel.
func n1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
