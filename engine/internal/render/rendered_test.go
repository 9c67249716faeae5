package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// The hostile-text tests judge a comment by what a reader would get: the
// Markdown is rendered by a CommonMark renderer with GitHub's extensions
// (tables, strikethrough, autolinks, task lists), raw HTML passed through
// as GitHub passes its allowed tags, and the resulting HTML is walked.
// Looking for substrings in the Markdown instead would both miss markup
// that only forms when rendered and refuse text that renders harmlessly
// (a name inside a code span).

// commentTags are the elements a perfgate comment may render to.
var commentTags = map[string]bool{
	"p": true, "h3": true, "strong": true, "em": true, "code": true, "pre": true, "sub": true, "br": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"ul": true, "li": true, "details": true, "summary": true, "a": true,
}

// mention and reference are what GitHub turns into a notification or a
// cross-reference when it finds them in rendered text.
var (
	mention   = regexp.MustCompile(`(^|[^\w])@[A-Za-z0-9]`)
	reference = regexp.MustCompile(`(^|[^\w])#[0-9]|\w/[\w.-]+#[0-9]|(?i)\bGH-[0-9]`)
)

// renderedComment is what a reader of md sees: its elements (with their
// attributes) and its text, rendered from the Markdown.
type renderedComment struct {
	tags  []string
	links []string // every href
	text  []string // every text node
	// linkable is the text GitHub searches for mentions and issue
	// references: all of it but what is inside code, pre and a elements
	// (html-pipeline's MentionFilter and IssueReferenceFilter skip those).
	linkable []string
}

func render(t *testing.T, md string) renderedComment {
	t.Helper()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	var out bytes.Buffer
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	var r renderedComment
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, literal bool) {
		switch n.Type {
		case html.ElementNode:
			if n.Data != "html" && n.Data != "head" && n.Data != "body" { // the parser's own
				r.tags = append(r.tags, n.Data)
			}
			for _, a := range n.Attr {
				if a.Key == "href" || a.Key == "src" {
					r.links = append(r.links, a.Val)
				}
			}
			literal = literal || n.Data == "code" || n.Data == "pre" || n.Data == "a"
		case html.TextNode:
			r.text = append(r.text, n.Data)
			if !literal {
				r.linkable = append(r.linkable, n.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, literal)
		}
	}
	walk(doc, false)
	return r
}

// requireSafe fails t when md renders to anything a perfgate comment must
// not hold (see problems).
func requireSafe(t *testing.T, md string, allowedLinks []string, words ...string) {
	t.Helper()
	for _, p := range problems(t, md, allowedLinks, words...) {
		t.Error(p)
	}
}

// problems lists what a reader would get from md that a perfgate comment
// must not hold: an element outside commentTags, a link other than
// allowed, a mention or issue reference, a heading other than the
// verdict's, or a format character. The words must each appear in the
// rendered text: the hostile input is shown, as text.
func problems(t *testing.T, md string, allowedLinks []string, words ...string) []string {
	r := render(t, md)
	var ps []string
	headings := 0
	for _, tag := range r.tags {
		if !commentTags[tag] {
			ps = append(ps, fmt.Sprintf("the comment renders a <%s> element", tag))
		}
		if tag == "h3" {
			headings++
		}
	}
	if headings > 1 {
		ps = append(ps, fmt.Sprintf("the comment renders %d headings; only the verdict is one", headings))
	}
	for _, l := range r.links {
		ok := false
		for _, a := range allowedLinks {
			ok = ok || l == a || strings.HasPrefix(l, a)
		}
		if !ok {
			ps = append(ps, fmt.Sprintf("the comment links to %q", l))
		}
	}
	text, linkable := strings.Join(r.text, "\x00"), strings.Join(r.linkable, "\x00")
	if m := mention.FindString(linkable); m != "" {
		ps = append(ps, fmt.Sprintf("the comment's text mentions someone: %q", m))
	}
	if m := reference.FindString(linkable); m != "" {
		ps = append(ps, fmt.Sprintf("the comment's text references an issue: %q", m))
	}
	for _, c := range text {
		if unicode.Is(unicode.Cf, c) && c != '\u200B' {
			ps = append(ps, fmt.Sprintf("the comment's text holds the format character %U", c))
		}
	}
	visibleText := strings.ReplaceAll(text, "\u200B", "")
	for _, w := range words {
		if !strings.Contains(visibleText, w) {
			ps = append(ps, fmt.Sprintf("the rendered comment does not show %q as text", w))
		}
	}
	return ps
}

// TestProblemsCatchesWhatItLooksFor: the checker itself finds each kind of
// markup it is there to catch, and passes plain text.
func TestProblemsCatchesWhatItLooksFor(t *testing.T) {
	for _, md := range []string{
		"<script>alert(1)</script>", "<img src=x>", "[x](http://evil.example)", "see http://evil.example",
		"hi @octocat", "fixes #12", "<sub>@octocat</sub>", "acme/repo#3", "# heading\n\n### verdict", "a\u202Eb",
	} {
		if len(problems(t, md, nil)) == 0 {
			t.Errorf("problems found nothing in %q", md)
		}
	}
	if ps := problems(t, "### ✅ perfgate: pass\n\n`httpapi.(*Server).handle` at 1.5%", nil, "httpapi.(*Server).handle"); len(ps) > 0 {
		t.Errorf("problems in plain text: %v", ps)
	}
}

// TestCommentPicture writes a golden comment as GitHub would show it, for
// the README's picture (scripts/comment-png.sh): PERFGATE_COMMENT_MD names
// the golden, PERFGATE_COMMENT_HTML the page to write. Without them it
// does nothing.
func TestCommentPicture(t *testing.T) {
	name, out := os.Getenv("PERFGATE_COMMENT_MD"), os.Getenv("PERFGATE_COMMENT_HTML")
	if name == "" || out == "" {
		t.Skip("PERFGATE_COMMENT_MD and PERFGATE_COMMENT_HTML are for scripts/comment-png.sh")
	}
	md, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	var body bytes.Buffer
	if err := gm.Convert(md, &body); err != nil {
		t.Fatal(err)
	}
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #1f2328; margin: 0; background: #fff; }
.comment { width: 900px; margin: 12px; border: 1px solid #d1d9e0; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; }
.body { padding: 8px 16px; }
h3 { font-size: 1.25em; margin: 8px 0 12px; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
th { background: #f6f8fa; font-weight: 600; }
sub { color: #59636e; font-size: 12px; }
details { margin: 6px 0; } summary { cursor: pointer; }
a { color: #0969da; text-decoration: none; }
</style></head><body><div class="comment"><div class="header"><b>github-actions</b> bot commented</div><div class="body">` + body.String() + `</div></div></body></html>`
	if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
}
