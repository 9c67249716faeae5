package render

import (
	"strings"
	"testing"
)

// TestPrintMetrics: the paired table says what each metric could detect,
// never below its threshold, says when too few pairs could detect
// anything, and footnotes a reported-only metric with the key that would
// make it gate.
func TestPrintMetrics(t *testing.T) {
	var b strings.Builder
	printMetrics(&b, regressionReport().Metrics)
	out := b.String()
	for _, want := range []string{"heap", "+78.12 KiB/1k req", "≥ 64 KiB/1k req", "0.0039",
		"inconclusive*  nothing: 10 pairs are too few", "* reported, does not gate (set gate.latency to make it gate)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	printMetrics(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no metrics printed %q, want nothing", b.String())
	}
}
