// Package search finds catalog products matching a free-text query.
package search

import (
	"cmp"
	"slices"
	"strings"

	"example.com/perfgate-example/internal/catalog"
)

// MaxResults caps how many products one search returns. Clients page by
// refining the query, not by asking for more.
const MaxResults = 20

// Index answers searches over a fixed catalog.
//
// It is a plain linear scan over pre-lowered text. At a few thousand
// products that is tens of microseconds per query, which is cheaper to
// maintain than an inverted index and fast enough for this service.
type Index struct {
	entries []entry
}

// entry pairs a product with the lower-cased text it is matched against,
// computed once so that searches do not re-lower the catalog every time.
type entry struct {
	product catalog.Product
	name    string // lower-cased product name
	rest    string // lower-cased category and tags, space separated
}

// Result is one matching product with its relevance score.
type Result struct {
	catalog.Product
	Score int `json:"score"`
}

// Scores per matched term: a hit in the name is a much stronger signal
// than a hit in the category or a tag.
const (
	nameHitScore  = 3
	otherHitScore = 1
)

// NewIndex prepares an index over every product in c.
func NewIndex(c *catalog.Catalog) *Index {
	products := c.All()
	entries := make([]entry, len(products))
	for i, p := range products {
		entries[i] = entry{
			product: p,
			name:    strings.ToLower(p.Name),
			rest:    strings.ToLower(p.Category + " " + strings.Join(p.Tags, " ")),
		}
	}
	return &Index{entries: entries}
}

// Search returns the best MaxResults matches for q, most relevant first,
// and the total number of products that matched.
func (idx *Index) Search(q Query) (results []Result, total int) {
	var matches []Result
	for i := range idx.entries {
		if score, ok := idx.entries[i].score(q.Terms); ok {
			matches = append(matches, Result{Product: idx.entries[i].product, Score: score})
		}
	}
	slices.SortFunc(matches, byRelevance)
	return matches[:min(len(matches), MaxResults)], len(matches)
}

// score reports whether e contains every term and, if so, how well.
func (e *entry) score(terms []string) (int, bool) {
	score := 0
	for _, term := range terms {
		switch {
		case strings.Contains(e.name, term):
			score += nameHitScore
		case strings.Contains(e.rest, term):
			score += otherHitScore
		default:
			return 0, false
		}
	}
	return score, true
}

// byRelevance orders by score, then cheapest first, then by ID so that the
// order is total and responses are stable.
func byRelevance(a, b Result) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.PriceCents, b.PriceCents); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
