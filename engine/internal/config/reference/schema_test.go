package reference

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/report"
)

const (
	repoRoot     = "../../../../"
	configSchema = repoRoot + "docs/schema/perfgate.schema.json"
	reportSchema = repoRoot + "docs/schema/report.schema.json"
)

// TestSchemasAreDocsSchema compares docs/schema's two files with what the
// generators write from the code (-update rewrites them), like
// TestReferenceIsDocsConfigMd.
func TestSchemasAreDocsSchema(t *testing.T) {
	for path, generate := range map[string]func(string) ([]byte, error){
		configSchema: ConfigSchema,
		reportSchema: ReportSchema,
	} {
		want, err := generate(reportDir)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(want) {
			t.Fatalf("%s: the generator wrote invalid JSON", path)
		}
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the code describes; regenerate it: %s", strings.TrimPrefix(path, repoRoot), Command)
		}
	}
}

// TestUnitPatternsParseLikeReport holds each unit's schema pattern against
// the parser it stands for: a text the pattern accepts parses, and one it
// refuses does not (values out of range, which validation refuses later,
// aside).
func TestUnitPatternsParseLikeReport(t *testing.T) {
	parses := func(parse func(string) error) func(string) bool {
		return func(s string) bool { return parse(s) == nil }
	}
	for _, tc := range []struct {
		pattern string
		parses  func(string) bool
		samples []string
	}{
		{cpuPattern, parses(func(s string) error { _, err := report.ParseCPU(s); return err }),
			[]string{"2", "0.5", ".5", "500m", " 1 ", "+2", "1e3", "2 m", "m", "", "2c", "0.5 cores", "1.", "500M"}},
		{bytesPattern, parses(func(s string) error { _, err := report.ParseBytes(s); return err }),
			[]string{"256Mi", "1Gi", "512Ki", "100M", "1048576", "1.5Gi", "5k", "256MB", "1GiB", "256mi", "1K", "", "Mi", "0"}},
		{durationPattern, parses(func(s string) error { _, err := report.ParseDuration(s); return err }),
			[]string{"3s", "500ms", "1m30s", "0", "1.5h", ".5s", "1.s", "2µs", "2μs", "3us", "10ns", "-1s", "10", "1d", "", "s", "1 s", "1h 30m", "00"}},
		{fractionPattern, parses(func(s string) error { _, err := report.ParseFraction(s); return err }),
			[]string{"10%", "10 %", "0.1", ".5", "1e-3", "1.5%", "-2%", "10%%", "ten", "", "%", "1e3%", "0x10", "1,5"}},
	} {
		re := regexp.MustCompile(tc.pattern)
		for _, s := range tc.samples {
			if got, want := re.MatchString(s), tc.parses(s); got != want {
				t.Errorf("%q: pattern %s matches: %v, parser accepts: %v", s, tc.pattern, got, want)
			}
		}
	}
}

// TestRequestShortFormParsesLikeConfig holds the pattern of a request
// written as a string against the parser.
func TestRequestShortFormParsesLikeConfig(t *testing.T) {
	re := regexp.MustCompile(requestShortForm().get("pattern").(string))
	for _, s := range []string{"GET /", "POST /order", "GET /search?q=alpha", " DELETE  /a/b ", "get /", "FETCH /", "/search", "GET", "GET //evil.example/", "GET http://x/", "GET /a b", "GET search"} {
		_, err := config.Parse("request", []byte(Minimal+"load:\n  requests:\n    - "+strconvQuote(s)+"\n"))
		if got, want := re.MatchString(s), err == nil; got != want {
			t.Errorf("%q: pattern matches: %v, parser accepts: %v (%v)", s, got, want, err)
		}
	}
}

func strconvQuote(s string) string {
	data, _ := json.Marshal(s) // a JSON string is a YAML double-quoted string
	return string(data)
}

// schemaCases are the perfgate.yml files __tests__/schemas.test.ts checks
// against perfgate.schema.json.
type schemaCases struct {
	Valid   []string `json:"valid"`
	Invalid []struct {
		File string `json:"file"`
		Key  string `json:"key"`
	} `json:"invalid"`
}

// TestSchemaCasesParseLikeTheyValidate: the files the schema must accept
// are valid to the parser, and those it must refuse are refused by the
// parser too, for the key the case names; so the schema's test holds it
// against the parser, not against a guess.
func TestSchemaCasesParseLikeTheyValidate(t *testing.T) {
	data, err := os.ReadFile("testdata/schema/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases schemaCases
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, path := range cases.Valid {
		if _, err := config.Load(repoRoot + path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, c := range cases.Invalid {
		_, err := config.Load("testdata/schema/" + c.File)
		if err == nil {
			t.Errorf("%s parses; the schema's test expects the parser to refuse it", c.File)
			continue
		}
		if !strings.Contains(err.Error(), c.Key) {
			t.Errorf("%s: the error does not name %s: %v", c.File, c.Key, err)
		}
	}
}
