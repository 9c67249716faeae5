package chart

import (
	"flag"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// stepSeries is 40 nightlies with a confirmed +8% step at 25 and a
// suspected one at 10.
func stepSeries() Series {
	s := Series{Title: "CPU per request (cpu) on AMD EPYC 7763 ×4, cgroup v2, 1000m", Quantity: "CPU per request", Unit: "µs/req"}
	start := time.Date(2026, 10, 1, 3, 17, 0, 0, time.UTC)
	for i := 0; i < 40; i++ {
		v := 40 + 0.4*math.Sin(float64(i))
		if i >= 25 {
			v *= 1.08
		}
		s.Points = append(s.Points, Point{Label: "c" + string(rune('a'+i%26)) + "12345", Time: start.AddDate(0, 0, i), Median: v, Low: v - 0.5, High: v + 0.6})
	}
	s.Marks = []Mark{{Index: 10, Label: "+1.1% p=0.0009"}, {Index: 25, Label: "+8.0% p=0.0005", Confirmed: true, Commit: "3f9c2e1"}}
	return s
}

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update to accept)", name)
	}
}

func TestSVGGolden(t *testing.T) {
	goldenFile(t, "step.svg", SVG(stepSeries(), 960, 320))
}

func TestSVGEdgeCases(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for name, s := range map[string]Series{
		"empty":             {Title: "x"},
		"one":               {Points: []Point{{Time: day, Median: 5, Low: 5, High: 5}}},
		"zeros":             {Points: []Point{{Time: day, Median: 0}, {Time: day.Add(time.Hour), Median: 0}}},
		"negative":          {Points: []Point{{Time: day, Median: -3, Low: -4, High: -2}, {Time: day.AddDate(0, 0, 5), Median: 2e9, Low: 1e9, High: 3e9}}},
		"marks at the ends": {Points: []Point{{Time: day, Median: 1}, {Time: day, Median: 2}}, Marks: []Mark{{Index: 0}, {Index: 2}, {Index: -1}}},
	} {
		out := SVG(s, 400, 200)
		if !strings.HasPrefix(out, "<svg") || !strings.HasSuffix(out, "</svg>") || strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Errorf("%s: %s", name, out)
		}
	}
	if !strings.Contains(SVG(Series{}, 400, 200), "no entries") {
		t.Error("an empty series does not say so")
	}
}

func TestEveryTextIsEscaped(t *testing.T) {
	s := stepSeries()
	s.Title = "<script>alert(1)</script>"
	s.Unit = "</text><script>"
	s.Quantity = "<svg onload=alert(1)>"
	s.Points[3].Label = `"><img src=x onerror=alert(1)>`
	s.Marks[1].Commit = "<img src=y>"
	page := Page("<b>t</b>", []string{"<iframe>"}, []Series{s})
	for _, bad := range []string{"<script", "<img", "<iframe", "<b>", "<svg onload"} {
		if strings.Contains(page, bad) {
			t.Errorf("%q reached the page unescaped", bad)
		}
	}
}

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, "▁▂▃▄▅▆▇█"},
		{[]float64{3, 3, 3}, "▄▄▄"},
		{[]float64{1, math.NaN(), 2}, "▁ █"},
		{nil, ""},
	} {
		if got := Sparkline(c.in); got != c.want {
			t.Errorf("Sparkline(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
