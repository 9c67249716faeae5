package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// tree writes a head tree: go.mod and internal/api/search.go as the patch
// below leaves it.
func tree(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/svc\n\ngo 1.26\n",
		"internal/api/search.go": `package api

import "fmt"

type Server struct{}

func (s *Server) handleSearch(q string) string {
	key := fmt.Sprintf("q=%s", q)
	return key
}

func helper() int { return 1 }
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const patch = `Planted: a Sprintf per request.

diff --git a/internal/api/search.go b/internal/api/search.go
index 1111111..2222222 100644
--- a/internal/api/search.go
+++ b/internal/api/search.go
@@ -1,9 +1,10 @@
 package api
 
+import "fmt"
 
 type Server struct{}
 
 func (s *Server) handleSearch(q string) string {
-	key := q
+	key := fmt.Sprintf("q=%s", q)
 	return key
 }
`

func TestPlantedNamesTheChangedFunctionAndLines(t *testing.T) {
	dir := tree(t)
	p := filepath.Join(t.TempDir(), "plant.patch")
	if err := os.WriteFile(p, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	places, err := Planted(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Line 3 (the import) is in no function; line 8 is handleSearch's.
	if len(places) != 1 || places[0].Function != "example.com/svc/internal/api.(*Server).handleSearch" ||
		places[0].File != "internal/api/search.go" || !slices.Equal(places[0].Lines, []int64{8}) {
		t.Errorf("places = %+v", places)
	}
}

func TestJudgeNamesThePlantFromTheCallerAndItsLine(t *testing.T) {
	places := []Place{{Function: "example.com/svc/internal/api.(*Server).handleSearch", File: "internal/api/search.go", Lines: []int64{8}}}
	rep := &report.Report{Verdict: report.Regression,
		Metrics: []report.Metric{{Name: "allocs", Base: 70}},
		Functions: []report.Function{
			{Profile: "allocs", Kind: "flat", Unit: "allocs/req", Name: "fmt.Sprintf", Via: "runtime.slicebytetostring", Delta: 2, Base: 0, Head: 2,
				Caller: "example.com/svc/internal/api.(*Server).handleSearch", CallerLine: 8},
		},
		Hints: []report.Hint{{Rule: "formatting-on-hot-path", Message: "fmt.Sprintf (reached from example.com/svc/internal/api.(*Server).handleSearch line 8) allocates ..."}},
	}
	j := Judge("alloc-sprintf", rep, places)
	if !j.Named || !j.OnFirstScreen || !j.LineNamed || !j.Fired || !j.NamesPlace || j.First != "fmt.Sprintf" || j.Rows != 1 {
		t.Errorf("judgement %+v", j)
	}
	rep.Functions[0].CallerLine = 9
	if j := Judge("alloc-sprintf", rep, places); !j.Named || j.LineNamed {
		t.Errorf("another line: %+v", j)
	}
	if j := Judge("aa", &report.Report{Verdict: report.Pass}, nil); j.Named || j.Rows != 0 || j.Hint != "" {
		t.Errorf("A/A: %+v", j)
	}
}
