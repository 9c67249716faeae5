package render

import (
	"regexp"
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
// and inline HTML) so that it can only ever show as the text it is, while
// staying readable where the comment is read as plain text (gh pr view,
// e-mail): only a character that could start markup where it stands is
// escaped, and a name with nothing of the kind passes unchanged. So $ [ ]
// \ ` and | are always backslash-escaped (math, links, code, table
// cells); * and ~ unless spaces stand on both sides (then they can neither
// open nor close emphasis or strikethrough); _ only where it could open or
// close emphasis (not inside a word, as in mapassign_faststr); < and & only
// where they would start a tag or an entity; @ and # only where they would
// mention someone or reference an issue (a zero-width space after them); the "://" of a URL and the "." of
// "www." so that nothing becomes a link; and the first character when it
// would start a block (a list, a heading, a quote, a rule). Newlines become
// spaces, control characters U+FFFD, format characters (Unicode category
// Cf: zero-width spaces and joiners, bidirectional controls, the byte
// order mark, soft hyphens) are removed, and the result is cut to maxText
// runes.
func Text(s string) string { return escape(s, true, maxText) }

// Prose is Text for sentences: the same escaping, cut at maxProse runes.
func Prose(s string) string { return escape(s, true, maxProse) }

// HTMLText escapes an untrusted line for a raw HTML block such as <pre>,
// where Markdown is not processed and backslash escapes would show.
func HTMLText(s string) string { return escape(s, false, maxText) }

// ProseNamingFunctions is Prose for a sentence that names Go functions
// (a root-cause hint): each name is a code span, as the tables show it
// ("`httpapi.(*Server).handleSearch`", not "httpapi.(\*Server).handleSearch"),
// and the rest is escaped as Prose, with the spans as its neighbours.
func ProseNamingFunctions(s string) string {
	rs, cut := visible(s, maxProse)
	text := string(rs)
	var spans [][2]int
	for _, m := range goFunctionName.FindAllStringIndex(text, -1) {
		// Byte offsets to rune offsets.
		spans = append(spans, [2]int{utf8.RuneCountInString(text[:m[0]]), utf8.RuneCountInString(text[:m[1]])})
	}
	return escapeRunes(rs, cut, true, spans)
}

// goFunctionName matches a qualified Go function as profiles name it:
// an import path's last element or more, a pointer or value receiver, a
// name, closures ("fmt.Sprintf", "internal/httpapi.(*Server).handleSearch",
// "main.main.func1.2"). Only such characters: never a backtick, so the
// span needs no longer fence.
var goFunctionName = regexp.MustCompile(`(?:[A-Za-z0-9_.\-]+/)*[A-Za-z_][A-Za-z0-9_\-]*\.(?:\(\*?[A-Za-z_][A-Za-z0-9_]*(?:\[[A-Za-z0-9_.,*/\-]*\])?\)\.)?[A-Za-z_][A-Za-z0-9_]*(?:\.func[0-9]+(?:\.[0-9]+)*)?`)

func escape(s string, markdown bool, limit int) string {
	rs, cut := visible(s, limit)
	return escapeRunes(rs, cut, markdown, nil)
}

// escapeRunes is escape of runes already cut, with the runes in code (from,
// to) shown as code spans.
func escapeRunes(rs []rune, cut, markdown bool, code [][2]int) string {
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		if len(code) > 0 && i == code[0][0] {
			b.WriteString(Code(string(rs[code[0][0]:code[0][1]])))
			i = code[0][1] - 1
			code = code[1:]
			continue
		}
		r := rs[i]
		prev, next := rune(' '), rune(' ')
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case !markdown:
			b.WriteString(htmlEscape(r))
		case r == '<' && (isASCIILetter(next) || strings.ContainsRune("/!?", next)):
			b.WriteString("&lt;")
		case r == '&' && (isASCIILetter(next) || next == '#'):
			b.WriteString("&amp;")
		case r == '@' && (isWordRune(next) || next == '-'):
			// GitHub finds mentions in the rendered text, after entities
			// are decoded: only a character between @ and the name stops
			// one, and a zero-width space is invisible (as Renovate does).
			b.WriteString("@\u200B")
		case r == '#' && i == 0:
			b.WriteString("&#35;") // a heading
		case r == '#' && (unicode.IsDigit(next) || isWordRune(prev)):
			// #12 and owner/repo#12 reference an issue, also in the
			// rendered text.
			b.WriteString("#\u200B")
		case r == '_' && !(isWordRune(prev) && isWordRune(next)):
			b.WriteString(`\_`)
		case r == '~' && i > 0 && i+1 < len(rs) && prev == ' ' && next == ' ',
			r == '~' && i == 0 && len(rs) > 1 && next == ' ',
			r == '*' && i > 0 && i+1 < len(rs) && prev == ' ' && next == ' ':
			// Between two spaces of the text itself it can neither open nor
			// close emphasis or strikethrough. At the text's edges the
			// neighbour is unknown, so it is escaped there, but for a
			// leading "~ " (benchstat's "no change" cell): a tilde cannot
			// start a block, and followed by a space it cannot open.
			b.WriteRune(r)
		case strings.ContainsRune("*~$[]\\`|", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == ':' && next == '/' && i+2 < len(rs) && rs[i+2] == '/':
			b.WriteString(`\:`) // http://... would become a link
		case r == '.' && i >= 3 && strings.EqualFold(string(rs[i-3:i]), "www"):
			b.WriteString(`\.`) // so would www.example.com
		case i == 0 && (r == '>' || strings.ContainsRune("-+=*", r) && (next == ' ' || onlyRune(rs, r))):
			b.WriteByte('\\') // a quote, a list item or a rule
			b.WriteRune(r)
		case (r == '.' || r == ')') && next == ' ' && leadingNumber(rs[:i]):
			b.WriteByte('\\') // "1. " starts an ordered list
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// visible is s as runes without format characters, with newlines as
// spaces and control characters as U+FFFD, cut to limit runes; cut says
// whether anything visible was left out.
func visible(s string, limit int) (rs []rune, cut bool) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			// Invisible: a name could otherwise look like another one, or
			// read in an order other than the one it is written in.
			continue
		}
		if len(rs) == limit {
			return rs, true
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			r = '\uFFFD'
		}
		rs = append(rs, r)
	}
	return rs, false
}

// htmlEscape is one rune of text inside an HTML element, where Markdown
// is not processed.
func htmlEscape(r rune) string {
	switch r {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '"':
		return "&quot;"
	case '@':
		return "&#64;"
	case '#':
		return "&#35;"
	}
	return string(r)
}

// leadingNumber says whether the runes so far are only digits: "12." or
// "12)" at the start of a line is an ordered list.
func leadingNumber(rs []rune) bool {
	if len(rs) == 0 || len(rs) > 9 {
		return false
	}
	for _, r := range rs {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// onlyRune says whether rs is r repeated: "---" or "===" alone is a rule.
func onlyRune(rs []rune, r rune) bool {
	for _, c := range rs {
		if c != r && c != ' ' {
			return false
		}
	}
	return true
}

func isASCIILetter(r rune) bool { return r < 128 && unicode.IsLetter(r) }

// isWordRune is a letter or digit: _ between two of them cannot open or
// close emphasis (CommonMark's flanking rules), and @ before one mentions.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Code shows an untrusted string as a Markdown code span, where nothing is
// interpreted (no HTML, no mention, no reference, no link), so a function
// name reads as itself: the fence is one backtick longer than the longest
// run inside, and | is backslash-escaped because a table row is split at
// it before code spans are read (GitHub's table extension).
func Code(s string) string {
	rs, cut := visible(s, maxText)
	text := string(rs)
	if cut {
		text += "…"
	}
	text = strings.ReplaceAll(text, "|", `\|`)
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") || strings.TrimSpace(text) == "" {
		text = " " + text + " "
	}
	return fence + text + fence
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
