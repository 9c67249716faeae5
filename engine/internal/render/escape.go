package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxText is the longest untrusted name or label shown; longer ones are cut.
// maxProse is the same for sentences (the verdict's reason, hints,
// warnings), which name several metrics or functions and their evidence.
const (
	maxText  = 160
	maxProse = 1200
)

// Text escapes an untrusted string for Markdown (also inside table cells
// and inline HTML): HTML specials and Markdown punctuation become entities
// or backslash escapes, @ and # cannot mention or link, newlines become
// spaces, control characters become U+FFFD, format characters (Unicode
// category Cf: zero-width spaces and joiners, bidirectional controls, the
// byte order mark, soft hyphens) are removed, and the result is cut to
// maxText runes.
func Text(s string) string { return escape(s, true, maxText) }

// Prose is Text for sentences: the same escaping, cut at maxProse runes.
func Prose(s string) string { return escape(s, true, maxProse) }

// HTMLText escapes an untrusted line for a raw HTML block such as <pre>,
// where Markdown is not processed and backslash escapes would show.
func HTMLText(s string) string { return escape(s, false, maxText) }

func escape(s string, markdown bool, limit int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			// Invisible: a name could otherwise look like another one, or
			// read in an order other than the one it is written in.
			continue
		}
		if n == limit {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '@':
			b.WriteString("&#64;")
		case r == '#':
			b.WriteString("&#35;")
		case r == '|':
			b.WriteString("&#124;")
		case r == '`':
			b.WriteString("&#96;")
		case markdown && strings.ContainsRune(`\*_[]()~!{}+-.:=$^`, r):
			// CommonMark lets any ASCII punctuation be backslash-escaped.
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code shows an untrusted string in a code element (inline HTML, because a
// Markdown code span would show the entities literally).
func Code(s string) string {
	return "<code>" + Text(s) + "</code>"
}

// removeFormat drops the Unicode format characters (category Cf) from s.
func removeFormat(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
