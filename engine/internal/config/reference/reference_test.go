package reference

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
)

var update = flag.Bool("update", false, "rewrite docs/config.md and docs/schema/*.schema.json")

const (
	reportDir = "../../report"
	configMd  = "../../../../docs/config.md"
)

// TestReferenceIsDocsConfigMd compares docs/config.md with what the
// generator prints from the code (-update rewrites it), like
// TestActionFactsAreTheEngines does for src/engine-facts.ts.
func TestReferenceIsDocsConfigMd(t *testing.T) {
	want, err := Markdown(reportDir)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(configMd, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(configMd)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/config.md is not what the config package documents; regenerate it: %s", Command)
	}
}

// TestMinimalParses: the smallest file the reference shows is valid.
func TestMinimalParses(t *testing.T) {
	if _, err := config.Parse("minimal", []byte(Minimal)); err != nil {
		t.Fatal(err)
	}
}

// TestEveryKeyDocumented: every key config.Keys lists appears as a row
// or, for a section, as a heading, so a key that parsing knows is never left
// out of the reference.
func TestEveryKeyDocumented(t *testing.T) {
	data, err := Markdown(reportDir)
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	var check func(section string)
	check = func(section string) {
		for _, k := range config.Keys(section) {
			key := join(section, k)
			switch {
			case key == "load.requests":
				check(key + "[]")
				fallthrough
			case len(config.Keys(key)) == 0:
				if !strings.Contains(md, "| `"+key+"` |") {
					t.Errorf("docs/config.md has no row for %s", key)
				}
			case key == "pairs": // a number or {min, max}: rows pairs.min and pairs.max
				check(key)
			default:
				if !strings.Contains(md, "### `"+key+"`") {
					t.Errorf("docs/config.md has no section for %s", key)
				}
				check(key)
			}
		}
	}
	check("")
}

// TestUndocumentedFieldIsRefused: a field without a doc comment stops the
// generator, naming the field, instead of an empty row.
func TestUndocumentedFieldIsRefused(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(reportDir + "/config.go")
	if err != nil {
		t.Fatal(err)
	}
	const comment = "\t// Ready is the path polled with GET until it answers 2xx; the run\n\t// starts then.\n"
	stripped := strings.Replace(string(src), comment, "", 1)
	if stripped == string(src) {
		t.Fatal("the Ready field's comment moved; update this test")
	}
	if err := os.WriteFile(dir+"/config.go", []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Markdown(dir)
	if err == nil || !strings.Contains(err.Error(), "report.Service.Ready (service.ready in perfgate.yml) has no doc comment") {
		t.Fatalf("got %v, want an error naming service.ready's missing doc comment", err)
	}
}

// TestExamplesParse: the perfgate.yml examples users copy (the README's,
// docs/cli.md's and examples/perfgate.yml) are valid files.
func TestExamplesParse(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/cli.md"} {
		text, err := os.ReadFile("../../../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, block := range strings.Split(string(text), "```yaml\n")[1:] {
			block, _, _ = strings.Cut(block, "```")
			if !strings.Contains(block, "\nversion: 1\n") {
				continue // a workflow, not a perfgate.yml
			}
			found = true
			if _, err := config.Parse(doc+"'s perfgate.yml example", []byte(block)); err != nil {
				t.Error(err)
			}
		}
		if !found {
			t.Errorf("%s has no perfgate.yml example (a yaml block with version: 1)", doc)
		}
	}
	if _, err := config.Load("../../../../examples/perfgate.yml"); err != nil {
		t.Error(err)
	}
}
