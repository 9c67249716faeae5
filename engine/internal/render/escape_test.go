package render

import (
	"strings"
	"testing"
	"unicode"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// formatChars are Unicode format characters (category Cf) that make text
// look other than it reads: zero-width space, non-joiner and joiner, word
// joiner, byte order mark, soft hyphen, the bidirectional embeddings,
// overrides and isolates, and a tag character.
var formatChars = []rune{
	'\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD',
	'\u200E', '\u200F', '\u061C',
	'\u202A', '\u202B', '\u202C', '\u202D', '\u202E',
	'\u2066', '\u2067', '\u2068', '\u2069',
	'\U000E0041',
}

func TestEscapeRemovesFormatCharacters(t *testing.T) {
	escapes := []struct {
		name string
		fn   func(string) string
		want string
	}{
		{"Text", Text, "main.handle"},
		{"Prose", Prose, "main.handle"},
		{"HTMLText", HTMLText, "main.handle"},
	}
	for _, e := range escapes {
		for _, r := range formatChars {
			if !unicode.Is(unicode.Cf, r) {
				t.Fatalf("%U is not a format character; the table is wrong", r)
			}
			got := e.fn("main." + string(r) + "handle")
			if got != e.want {
				t.Errorf("%s(main.%U handle) = %+q, want %q", e.name, r, got, e.want)
			}
		}
	}
}

// TestEscapeLimitCountsVisibleRunes: removed characters do not use up the
// length limit, so a name padded with them is not cut early.
func TestEscapeLimitCountsVisibleRunes(t *testing.T) {
	name := strings.Repeat("a\u200B", maxText)
	if got := Text(name); got != strings.Repeat("a", maxText) {
		t.Errorf("Text cut a name of %d visible runes: %q", maxText, got)
	}
}

func TestHTMLRemovesFormatCharacters(t *testing.T) {
	rep := flameReport()
	rep.Functions = append(rep.Functions, report.Function{Profile: "cpu", Kind: "flat", Unit: "µs/req", Status: "new", Delta: 1,
		Name: "main.\u202Eevil\u200B\uFEFF"})
	rep.Flame["cpu"].Children[0].Children = append(rep.Flame["cpu"].Children[0].Children,
		&report.FlameNode{Name: "main.\u2066frame\u2069", Base: 1, Head: 1})
	rep.Warnings = append(rep.Warnings, "warning\u00AD\u2060")
	page, err := HTML(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page {
		if unicode.Is(unicode.Cf, r) {
			t.Errorf("the page contains the format character %U", r)
		}
	}
}

// TestTextStaysTextWithoutBackslashesBetweenSpaces: * and ~ with spaces on
// both sides cannot open or close emphasis or strikethrough, so they pass
// unescaped (benchstat's "~" of no change reads as it is in gh pr view);
// anywhere else they are escaped. Either way the rendered comment shows
// the text as it is, with no emphasis or strikethrough.
func TestTextStaysTextWithoutBackslashesBetweenSpaces(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"~ (p=0.352 n=14)", "~ (p=0.352 n=14)"},
		{"a * b ~ c", "a * b ~ c"},
		{"(*Server).handle ~x~ *y*", `(\*Server).handle \~x\~ \*y\*`},
		{"a ** b ~~ c", `a \*\* b \~\~ c`},
		// At the edges the neighbour is unknown: escaped.
		{"* foo", `\* foo`},
		{"* * *", `\* * \*`},
		{"*", `\*`},
		{"x ~", `x \~`},
	} {
		md := Text(tt.in)
		if md != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, md, tt.want)
		}
		for _, around := range []string{"x " + md + " y", md, "(" + md + ")(" + md + ")", "- " + md} {
			r := render(t, around)
			for _, tag := range r.tags {
				if tag == "em" || tag == "strong" || tag == "del" || tag == "hr" || tag == "li" && !strings.HasPrefix(around, "- ") {
					t.Errorf("Text(%q) = %q renders as <%s> in %q", tt.in, md, tag, around)
				}
			}
		}
		r := render(t, "x "+md+" y")
		for _, tag := range r.tags {
			if tag == "em" || tag == "strong" || tag == "del" {
				t.Errorf("Text(%q) = %q renders as <%s>", tt.in, md, tag)
			}
		}
		if got := strings.Join(r.text, ""); !strings.Contains(got, tt.in) {
			t.Errorf("Text(%q) = %q renders as %q", tt.in, md, got)
		}
	}
}

// TestProseNamesFunctionsInCode: a hint's function names read as code, as
// in the tables, without backslashes; everything around them stays
// escaped, however hostile, with the code spans as its neighbours.
func TestProseNamesFunctionsInCode(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		codes    int
	}{
		{"fmt.Sprintf line 240 (reached from internal/httpapi.(*Server).handleSearch line 36)",
			"`fmt.Sprintf` line 240 (reached from `internal/httpapi.(*Server).handleSearch` line 36)", 2},
		{"main.(*Cache[go.shape.string]).Get.func1.2 grew", "`main.(*Cache[go.shape.string]).Get.func1.2` grew", 1},
		{"x.(*T).m*evil* [a](http://x) `tick` _u_ @someone #12", "`x.(*T).m`\\*evil\\* \\[a\\](http\\://x) \\`tick\\` \\_u\\_ @\u200Bsomeone #\u200B12", 1},
		{"0.977 → 1.000 and 9.868 allocs/req", "0.977 → 1.000 and 9.868 allocs/req", 0},
	} {
		md := ProseNamingFunctions(tt.in)
		if md != tt.want {
			t.Errorf("ProseNamingFunctions(%q) = %q, want %q", tt.in, md, tt.want)
		}
		r := render(t, "**Likely cause** (rule): "+md+" ("+md+")")
		codes := 0
		for _, tag := range r.tags {
			switch tag {
			case "code":
				codes++
			case "strong", "p":
			default:
				t.Errorf("%q renders as <%s>", md, tag)
			}
		}
		if codes != 2*tt.codes {
			t.Errorf("%q renders %d code spans, want %d", md, codes, 2*tt.codes)
		}
		if got := strings.Join(r.text, ""); !strings.Contains(got, strings.NewReplacer("@", "@\u200B", "#1", "#\u200B1").Replace(tt.in)) {
			t.Errorf("%q renders as %q", md, got)
		}
	}
}
