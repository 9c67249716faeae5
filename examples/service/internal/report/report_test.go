package report

import (
	"testing"

	"example.com/perfgate-example/internal/catalog"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		sorted []int64
		pct    int
		want   int64
	}{
		{sorted: []int64{7}, pct: 50, want: 7},
		{sorted: []int64{1, 2, 3, 4}, pct: 50, want: 2},
		{sorted: []int64{1, 2, 3, 4, 5}, pct: 50, want: 3},
		{sorted: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, pct: 90, want: 9},
		{sorted: []int64{1, 2, 3}, pct: 0, want: 1},
		{sorted: []int64{1, 2, 3}, pct: 100, want: 3},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.pct); got != tt.want {
			t.Errorf("percentile(%v, %d) = %d, want %d", tt.sorted, tt.pct, got, tt.want)
		}
	}
}

func TestBuild(t *testing.T) {
	products := []catalog.Product{
		{ID: 1, Category: "home", Tags: []string{"eco", "new"}, PriceCents: 100},
		{ID: 2, Category: "home", Tags: []string{"eco"}, PriceCents: 300},
		{ID: 3, Category: "tools", Tags: []string{"sale"}, PriceCents: 50},
	}
	got := Build(products)
	if got.Products != 3 || len(got.Categories) != 2 {
		t.Fatalf("Build = %+v, want 3 products in 2 categories", got)
	}
	home := got.Categories[0]
	if home.Category != "home" || home.Products != 2 || home.MinPriceCents != 100 ||
		home.MaxPriceCents != 300 || home.MeanPriceCents != 200 || home.MedianPriceCents != 100 {
		t.Errorf("home stats = %+v", home)
	}
	if len(home.TopTags) != 2 || home.TopTags[0] != (TagCount{Tag: "eco", Count: 2}) {
		t.Errorf("home top tags = %+v, want eco first", home.TopTags)
	}
}
