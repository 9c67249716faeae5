package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// flameReport is the regression report with a CPU flame graph in which
// regexp.Compile is new in head, plus a hostile frame name.
func flameReport() *report.Report {
	rep := regressionReport()
	rep.Flame = map[string]*report.FlameNode{"cpu": {Name: "all", Base: 300, Head: 420, Children: []*report.FlameNode{
		{Name: "net/http.(*conn).serve", Base: 300, Head: 420, Children: []*report.FlameNode{
			{Name: "main.handleSearch", Base: 200, Head: 320, Children: []*report.FlameNode{
				{Name: "regexp.Compile", Base: 0, Head: 120},
				{Name: "main.index", Base: 190, Head: 190},
			}},
			{Name: "</script><script>alert(1)</script>", Base: 50, Head: 50},
		}},
	}}}
	return rep
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	page, err := HTML(flameReport())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a frame name closed the script element")
	}
	// Nothing may be fetched: no src or href pointing anywhere.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=`).FindString(page); m != "" {
		t.Errorf("the page loads something: %q", m)
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy forbidding requests")
	}
}

// TestHTMLInHeadlessChromium opens the page in a real browser: the script
// must draw the flame graph (its frames only exist once it ran) with the
// regressed function, and a screenshot is taken for people to look at.
func TestHTMLInHeadlessChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("PERFGATE_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is required (apt-get install chromium)")
		}
		t.Skip("chromium is not installed")
	}
	dir := t.TempDir()
	page, err := HTML(flameReport())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1200,1400"}
	dom, err := exec.Command(browser, append(args, "--dump-dom", "file://"+file)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	flame := string(dom)
	if i := strings.Index(flame, `id="flame"`); i >= 0 {
		flame = flame[i:]
	}
	if !regexp.MustCompile(`<div [^>]*background: rgb\(255, \d+, \d+\)[^>]*>regexp\.Compile</div>`).MatchString(flame) {
		t.Errorf("the drawn flame graph has no red regexp.Compile frame:\n%.2000s", flame)
	}
	if strings.Contains(flame, "<script>alert(1)") {
		t.Error("the hostile frame name became markup")
	}
	shot := filepath.Join(dir, "report.png")
	if out, err := exec.Command(browser, append(args, "--screenshot="+shot, "file://"+file)...).CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	if info, err := os.Stat(shot); err != nil || info.Size() < 10000 {
		t.Errorf("no real screenshot: %v", err)
	}
	if dst := os.Getenv("PERFGATE_SCREENSHOT_DIR"); dst != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(dst, "report.png"), data, 0o644)
	}
}

// TestHTMLShowsTheOperatingCharacteristic: a gating metric's OC becomes a
// row of the page's table, each point with its step of the threshold, its
// change and the share caught; metrics without one have no row.
func TestHTMLShowsTheOperatingCharacteristic(t *testing.T) {
	rep := regressionReport()
	withOC := -1
	for i, m := range rep.Metrics {
		if m.Name == "cpu" {
			withOC = i
			rep.Metrics[i].Threshold = 0.1
			rep.Metrics[i].OC = []report.OCPoint{{Change: 0, Caught: 0}, {Change: 0.05, Caught: 0.004}, {Change: 0.1, Caught: 0.42}, {Change: 0.2, Caught: 0.97}}
		}
	}
	if withOC < 0 {
		t.Fatal("the regression report has no cpu metric")
	}
	page, err := HTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"How often this gate would fail", "<th>0.5× threshold</th>", "<td>&#43;5.0%: 0.4%</td>", "<td>&#43;10.0%: 42%</td>", "<td>&#43;20.0%: 97%</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	table := page[strings.Index(page, `id="oc"`):]
	table = table[:strings.Index(table, "</table>")]
	if rows := strings.Count(table, "<tr><td>"); rows != 1 {
		t.Errorf("%d rows in the OC table, want the cpu row alone", rows)
	}
}
