package chart

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// chromium finds headless Chromium; without it the test is skipped, except
// where PERFGATE_REQUIRE_CHROMIUM is set (.ci/run installs it and sets it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("PERFGATE_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// TestChartRendersInChromium renders a trend page in headless Chromium
// and reads the screenshot's pixels: the line is drawn, it is higher on
// screen after the +8% step than before, and the confirmed step's solid
// red marker stands between the 25th and 26th entries.
func TestChartRendersInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "index.html")
	s := stepSeries()
	s.Marks = s.Marks[1:] // the confirmed mark alone: its colour is what is looked for
	if err := os.WriteFile(page, []byte(Page("perfgate trend", []string{"A test page."}, []Series{s})), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1100,700", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PERFGATE_KEEP_SCREENSHOT") != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(os.Getenv("PERFGATE_KEEP_SCREENSHOT"), data, 0o644)
	}

	line := pixels(img, func(r, g, b uint32) bool { return near(r, 0x1d) && near(g, 0x4e) && near(b, 0xd8) })
	marker := pixels(img, func(r, g, b uint32) bool { return near(r, 0xdc) && near(g, 0x26) && near(b, 0x26) })
	if len(line) < 500 {
		t.Fatalf("%d pixels of the median line's colour; the chart was not drawn", len(line))
	}
	if len(marker) < 100 {
		t.Fatalf("%d pixels of the confirmed marker's colour", len(marker))
	}
	minX, maxX := line[0].X, line[0].X
	for _, p := range line {
		minX, maxX = min(minX, p.X), max(maxX, p.X)
	}
	width := float64(maxX - minX)
	var leftY, rightY, leftN, rightN float64
	for _, p := range line {
		switch at := float64(p.X-minX) / width; {
		case at < 0.5:
			leftY, leftN = leftY+float64(p.Y), leftN+1
		case at > 0.7:
			rightY, rightN = rightY+float64(p.Y), rightN+1
		}
	}
	if leftY/leftN-rightY/rightN < 50 {
		t.Errorf("the line is at y %.0f before the step and %.0f after; after an +8%% step it must stand clearly higher", leftY/leftN, rightY/rightN)
	}
	// The vertical line is the column with the most marker pixels: the
	// legend's sample and the commit's label hold a few each.
	columns := map[int]int{}
	markerX := 0
	for _, p := range marker {
		columns[p.X]++
		if columns[p.X] > columns[markerX] {
			markerX = p.X
		}
	}
	if at := (float64(markerX) - float64(minX)) / width; at < 24.0/39 || at > 25.0/39 {
		t.Errorf("the confirmed marker stands at %.3f of the line's width, want between entries 25 and 26 (%.3f–%.3f)", at, 24.0/39, 25.0/39)
	}
}

func near(v uint32, want uint8) bool {
	d := int(v>>8) - int(want)
	return d >= -24 && d <= 24
}

func pixels(img image.Image, match func(r, g, b uint32) bool) []image.Point {
	var ps []image.Point
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if match(r, g, bl) {
				ps = append(ps, image.Point{X: x, Y: y})
			}
		}
	}
	return ps
}
