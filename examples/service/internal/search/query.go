package search

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxQueryLength bounds the query in characters. Longer queries are almost
// always pasted garbage, and every extra term multiplies the scan cost.
const MaxQueryLength = 64

// Errors returned by ParseQuery; they are safe to show to clients.
var (
	ErrEmptyQuery   = errors.New("query must not be empty")
	ErrQueryTooLong = errors.New("query is too long")
	ErrQueryInvalid = errors.New("query must be words of letters and digits, optionally joined by a hyphen or apostrophe")
)

// queryWord is one word of a query: letters and digits in any script,
// optionally joined by single hyphens or apostrophes ("o'brien", "x-2").
const queryWord = `[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*`

// queryWords accepts whitespace-separated words. That covers every product
// name and keeps markup, operators and stray punctuation out of queries
// and logs.
//
// It is compiled once at start-up: compiling this pattern costs hundreds
// of microseconds, far more than matching it, so it must stay off the
// request path.
var queryWords = regexp.MustCompile(`^` + queryWord + `(?:\s+` + queryWord + `)*$`)

// Query is a validated, normalised search query.
type Query struct {
	// Terms are the lower-cased words of the query. A product matches when
	// it contains every term.
	Terms []string
}

// String returns the query in its normalised form.
func (q Query) String() string { return strings.Join(q.Terms, " ") }

// ParseQuery validates raw user input and splits it into terms.
func ParseQuery(raw string) (Query, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return Query{}, ErrEmptyQuery
	case utf8.RuneCountInString(raw) > MaxQueryLength:
		return Query{}, ErrQueryTooLong
	case !queryWords.MatchString(raw):
		return Query{}, ErrQueryInvalid
	}
	return Query{Terms: strings.Fields(strings.ToLower(raw))}, nil
}
