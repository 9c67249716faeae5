package results

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// markdown renders the verdict the way report.md states it, so a test can
// tell which report.json a report.md was rendered from.
func markdown(size int) Rendering {
	return Rendering{Name: "report.md", Render: func(r *report.Report) ([]byte, error) {
		return []byte("verdict: " + r.Verdict + "\n" + strings.Repeat("x", size)), nil
	}}
}

var html = Rendering{Name: "report.html", Render: func(r *report.Report) ([]byte, error) {
	return []byte("<p>" + r.Verdict + "</p>\n"), nil
}}

// TestWriteReportWritesJSONFirst: each rendering is made only once the
// new report.json is on disk (the gate wrote report.md and report.html
// before report.json, so a failure between them left a comment the check
// did not match).
func TestWriteReportWritesJSONFirst(t *testing.T) {
	dir := t.TempDir()
	rep := &report.Report{Schema: report.Schema, Verdict: report.Regression}
	var seen []string
	check := func(name string) Rendering {
		return Rendering{Name: name, Render: func(r *report.Report) ([]byte, error) {
			var onDisk report.Report
			readJSON(t, filepath.Join(dir, "report.json"), &onDisk)
			seen = append(seen, onDisk.Verdict)
			return []byte(name), nil
		}}
	}
	if err := WriteReport(dir, rep, check("report.md"), check("report.html")); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != report.Regression || seen[1] != report.Regression {
		t.Errorf("the renderings saw report.json say %v, want the new verdict twice", seen)
	}
	assertOnly(t, dir, "report.html", "report.json", "report.md")
}

// TestWriteReportOnAFullDisk fills a real (tmpfs) file system: report.json
// fits, report.md does not. report.json must be complete, report.md
// absent (not partial, not the one from before), no temporary file left,
// and report.html, which fits, rendered from the same report.
func TestWriteReportOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Error(err)
		}
	})

	// The results of an earlier compare, which this one replaces.
	old := &report.Report{Schema: report.Schema, Verdict: report.Pass}
	if err := WriteReport(dir, old, markdown(10), html); err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Schema: report.Schema, Verdict: report.Regression, Warnings: []string{strings.Repeat("w", 64<<10)}}
	err := WriteReport(dir, rep, markdown(1<<20), html)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "write report.md") {
		t.Fatalf("err = %v, want report.md failing with ENOSPC", err)
	}
	var back report.Report
	readJSON(t, filepath.Join(dir, "report.json"), &back)
	if back.Verdict != report.Regression || len(back.Warnings) != 1 || len(back.Warnings[0]) != 64<<10 {
		t.Errorf("report.json is not the new report: verdict %s", back.Verdict)
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !bytes.Contains(page, []byte(report.Regression)) {
		t.Errorf("report.html is not the new report's: %q, %v", page, err)
	}
	assertOnly(t, dir, "report.html", "report.json")
}

// TestWriteReportJSONFailureRemovesRenderings: when report.json cannot be
// written, renderings from before are removed, not left to disagree with
// it, and none is made.
func TestWriteReportJSONFailureRemovesRenderings(t *testing.T) {
	dir := t.TempDir()
	old := &report.Report{Schema: report.Schema, Verdict: report.Pass}
	if err := WriteReport(dir, old, markdown(10), html); err != nil {
		t.Fatal(err)
	}
	bad := &report.Report{Schema: report.Schema, Verdict: report.Regression, Metrics: []report.Metric{{Name: "cpu", Delta: math.NaN()}}}
	rendered := false
	never := Rendering{Name: "report.md", Render: func(*report.Report) ([]byte, error) { rendered = true; return nil, nil }}
	if err := WriteReport(dir, bad, never, html); err == nil || !strings.Contains(err.Error(), "write report.json") {
		t.Fatalf("err = %v, want report.json failing", err)
	}
	if rendered {
		t.Error("report.md was rendered though report.json failed")
	}
	var back report.Report
	readJSON(t, filepath.Join(dir, "report.json"), &back)
	if back.Verdict != report.Pass {
		t.Errorf("report.json is %s, want the old complete one", back.Verdict)
	}
	assertOnly(t, dir, "report.json")
}

// TestWriteReportRenderingErrorRemovesTheOldFile: a rendering that fails
// leaves no file of that name, not the one from before.
func TestWriteReportRenderingErrorRemovesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	if err := WriteReport(dir, &report.Report{Verdict: report.Pass}, markdown(10), html); err != nil {
		t.Fatal(err)
	}
	broken := Rendering{Name: "report.html", Render: func(*report.Report) ([]byte, error) { return nil, errors.New("template failed") }}
	err := WriteReport(dir, &report.Report{Verdict: report.Regression}, markdown(10), broken)
	if err == nil || !strings.Contains(err.Error(), "write report.html: template failed") {
		t.Fatalf("err = %v", err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !bytes.HasPrefix(md, []byte("verdict: "+report.Regression)) {
		t.Errorf("report.md = %.40q, want the new verdict", md)
	}
	assertOnly(t, dir, "report.json", "report.md")
}
