package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"example.com/perfgate-example/internal/catalog"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw       string
		wantTerms []string
		wantErr   error
	}{
		{raw: "alpha", wantTerms: []string{"alpha"}},
		{raw: "  Steel   Knife ", wantTerms: []string{"steel", "knife"}},
		{raw: "o'brien x-2", wantTerms: []string{"o'brien", "x-2"}},
		{raw: "Café", wantTerms: []string{"café"}},
		{raw: "", wantErr: ErrEmptyQuery},
		{raw: "   ", wantErr: ErrEmptyQuery},
		{raw: strings.Repeat("é", MaxQueryLength), wantTerms: []string{strings.Repeat("é", MaxQueryLength)}},
		{raw: strings.Repeat("a", MaxQueryLength+1), wantErr: ErrQueryTooLong},
		{raw: "<script>", wantErr: ErrQueryInvalid},
		{raw: "a;b", wantErr: ErrQueryInvalid},
		{raw: "-alpha", wantErr: ErrQueryInvalid},
		{raw: "alpha--steel", wantErr: ErrQueryInvalid},
		{raw: "'", wantErr: ErrQueryInvalid},
	}
	for _, tt := range tests {
		q, err := ParseQuery(tt.raw)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseQuery(%q) error = %v, want %v", tt.raw, err, tt.wantErr)
			continue
		}
		if !reflect.DeepEqual(q.Terms, tt.wantTerms) {
			t.Errorf("ParseQuery(%q) terms = %q, want %q", tt.raw, q.Terms, tt.wantTerms)
		}
	}
}

func TestSearchRanksAndCaps(t *testing.T) {
	idx := NewIndex(catalog.Generate(catalog.DefaultSize, catalog.DefaultSeed))
	q, err := ParseQuery("alpha")
	if err != nil {
		t.Fatal(err)
	}
	results, total := idx.Search(q)
	if total <= MaxResults {
		t.Fatalf("total = %d; the test needs more than %d matches", total, MaxResults)
	}
	if len(results) != MaxResults {
		t.Fatalf("got %d results, want %d", len(results), MaxResults)
	}
	for i := 1; i < len(results); i++ {
		if byRelevance(results[i-1], results[i]) > 0 {
			t.Errorf("results %d and %d are out of order", i-1, i)
		}
	}
}
