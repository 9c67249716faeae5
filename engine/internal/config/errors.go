package config

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one problem in a perfgate.yml, located precisely enough that a
// user can fix every problem in one edit: the file, the line, the dotted
// field path, the offending text and what is allowed instead.
type Error struct {
	File string // as given to Load or Parse; empty from Config.Validate
	Line int    // 1-based; 0 when the problem has no line of its own
	// Field is the dotted path of the value, like load.requests[2].path;
	// list indexes count from 0.
	Field string
	// Value is the offending text as written; empty when the value is
	// missing or is not a scalar.
	Value string
	// Problem says what is wrong ("is not valid" when empty).
	Problem string
	// Want says what is allowed, e.g. "cores like 2, 0.5 or millicores like 500m".
	Want string
	// Hint is an optional likely fix, e.g. `did you mean "duration"?`.
	Hint string
}

// Error formats the problem like a compiler diagnostic:
//
//	perfgate.yml:12: resources.cpu: "fast" is not valid; want cores like 2, 0.5 or millicores like 500m
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Value != "" {
		b.WriteString(quote(e.Value) + " ")
	}
	if e.Problem != "" {
		b.WriteString(e.Problem)
	} else {
		b.WriteString("is not valid")
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	if e.Want != "" {
		b.WriteString("; want " + e.Want)
	}
	return b.String()
}

// Errors lists the problems carried by an error from Load, Parse or
// Validate, in file order; nil when err holds none.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if e, ok := err.(*Error); ok { //nolint:errorlint // walks the join tree itself: errors.As would stop at its first *Error
			out = append(out, e)
			return
		}
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, inner := range joined.Unwrap() {
				walk(inner)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) {
			out = append(out, e)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// quote shows a value the way it could be written in YAML, cut short so a
// long request body does not drown the message.
func quote(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return strconv.Quote(s)
}

// diagnostics collects the problems of one file together with where each
// field sits in it, so that parsing and validation can both point at the
// line a user must edit.
type diagnostics struct {
	file  string
	lines map[string]int    // field path -> line of its key or list item
	raw   map[string]string // field path -> scalar text as written
	bad   map[string]bool   // fields that failed to parse; validation skips them
	errs  []*Error
}

func newDiagnostics(file string) *diagnostics {
	return &diagnostics{
		file:  file,
		lines: map[string]int{},
		raw:   map[string]string{},
		bad:   map[string]bool{},
	}
}

// at records a problem found at a known line.
func (d *diagnostics) at(line int, field string, e Error) {
	e.File, e.Line, e.Field = d.file, line, field
	d.errs = append(d.errs, &e)
}

// fail records a problem found in a parsed value, at the nearest line the
// field or one of its parents was written on, showing the value as written
// when there is one.
func (d *diagnostics) fail(field, value string, e Error) {
	if raw, ok := d.raw[field]; ok && value != "" {
		value = raw
	}
	d.failKey(field, value, e)
}

// failKey is fail for a problem with a key itself (an environment variable
// or header name): it shows the key rather than its value. Fields that
// already failed to parse are skipped, so a user sees one message per
// mistake.
func (d *diagnostics) failKey(field, key string, e Error) {
	for f := field; f != ""; f = parent(f) {
		if d.bad[f] {
			return
		}
	}
	e.Value = key
	d.at(d.line(field), field, e)
}

// line is the line of field, or of its nearest parent written in the file.
func (d *diagnostics) line(field string) int {
	for f := field; f != ""; f = parent(f) {
		if l, ok := d.lines[f]; ok {
			return l
		}
	}
	return 0
}

// err returns nil, the one problem, or all of them joined, in file order.
func (d *diagnostics) err() error {
	sort.SliceStable(d.errs, func(i, j int) bool { return d.errs[i].Line < d.errs[j].Line })
	switch len(d.errs) {
	case 0:
		return nil
	case 1:
		return d.errs[0]
	}
	errs := make([]error, len(d.errs))
	for i, e := range d.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// parent strips the last element of a field path: load.requests[2].path ->
// load.requests[2] -> load.requests -> load -> "".
func parent(field string) string {
	i := strings.LastIndexAny(field, ".[")
	if i < 0 {
		return ""
	}
	return field[:i]
}

// suggest returns the known name closest to an unknown one when the match
// is obvious: same letters ignoring case and separators, or one or two
// typos in a word long enough for that to be unambiguous.
func suggest(name string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 3
	for _, k := range known {
		d := distance(norm(name), norm(k))
		if d < bestDist && d <= len(k)/3 {
			best, bestDist = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each count one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
