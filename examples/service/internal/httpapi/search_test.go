package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"example.com/perfgate-example/internal/search"
)

func TestSearch(t *testing.T) {
	env := newTestEnv(t)
	tests := []struct {
		name      string
		target    string
		wantQuery string
		wantTerms []string // every item must contain each term
		wantItems bool
	}{
		{name: "single term", target: "/search?q=alpha", wantQuery: "alpha", wantTerms: []string{"alpha"}, wantItems: true},
		{name: "case and spaces normalised", target: "/search?q=++Steel+++KNIFE+", wantQuery: "steel knife", wantTerms: []string{"steel", "knife"}, wantItems: true},
		{name: "matches tags", target: "/search?q=waterproof", wantQuery: "waterproof", wantTerms: []string{"waterproof"}, wantItems: true},
		{name: "no match", target: "/search?q=unobtainium", wantQuery: "unobtainium", wantItems: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.do(http.MethodGet, tt.target, "")
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %s", rec.Code, rec.Body)
			}
			got := decodeBody[searchResponse](t, rec)
			if got.Query != tt.wantQuery {
				t.Errorf("query = %q, want %q", got.Query, tt.wantQuery)
			}
			if (len(got.Items) > 0) != tt.wantItems {
				t.Fatalf("got %d items, want items: %v", len(got.Items), tt.wantItems)
			}
			if len(got.Items) > search.MaxResults || got.Total < len(got.Items) {
				t.Errorf("got %d items of total %d, want at most %d", len(got.Items), got.Total, search.MaxResults)
			}
			for _, item := range got.Items {
				text := strings.ToLower(item.Name + " " + item.Category + " " + strings.Join(item.Tags, " "))
				for _, term := range tt.wantTerms {
					if !strings.Contains(text, term) {
						t.Errorf("item %d %q does not contain %q", item.ID, item.Name, term)
					}
				}
			}
		})
	}
}

func TestSearchRejectsBadQueries(t *testing.T) {
	env := newTestEnv(t)
	tests := []struct {
		name        string
		method      string // GET if empty
		target      string
		wantStatus  int
		wantMessage string // empty: no JSON error body expected
	}{
		{name: "missing q", target: "/search", wantStatus: http.StatusBadRequest, wantMessage: "empty"},
		{name: "blank q", target: "/search?q=+++", wantStatus: http.StatusBadRequest, wantMessage: "empty"},
		{name: "markup", target: "/search?q=%3Cscript%3E", wantStatus: http.StatusBadRequest, wantMessage: "letters and digits"},
		{name: "too long", target: "/search?q=" + strings.Repeat("a", search.MaxQueryLength+1), wantStatus: http.StatusBadRequest, wantMessage: "too long"},
		{name: "wrong method", method: http.MethodDelete, target: "/search?q=alpha", wantStatus: http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			rec := env.do(method, tt.target, "")
			if tt.wantMessage == "" {
				if rec.Code != tt.wantStatus {
					t.Fatalf("status = %d, want %d", rec.Code, tt.wantStatus)
				}
				return
			}
			checkError(t, rec, tt.wantStatus, tt.wantMessage)
		})
	}
}
