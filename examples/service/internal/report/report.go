// Package report summarises the catalog per category.
package report

import (
	"cmp"
	"slices"

	"example.com/perfgate-example/internal/catalog"
)

// topTagsPerCategory is how many of a category's most common tags the
// report lists; more than a handful is noise on a dashboard.
const topTagsPerCategory = 3

// CategoryStats summarises the products of one category. Prices are in
// cents to avoid floating-point rounding in money.
type CategoryStats struct {
	Category         string     `json:"category"`
	Products         int        `json:"products"`
	MinPriceCents    int64      `json:"minPriceCents"`
	MedianPriceCents int64      `json:"medianPriceCents"`
	P90PriceCents    int64      `json:"p90PriceCents"`
	MaxPriceCents    int64      `json:"maxPriceCents"`
	MeanPriceCents   int64      `json:"meanPriceCents"`
	TopTags          []TagCount `json:"topTags"`
}

// TagCount is how many products of a category carry a tag.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Report is the per-category summary, largest category first.
type Report struct {
	Products   int             `json:"products"`
	Categories []CategoryStats `json:"categories"`
}

// Build computes the report from scratch.
//
// It deliberately does not cache: it stands in for an analytics query over
// live data, and it is the example service's heavy endpoint.
func Build(products []catalog.Product) Report {
	pricesByCategory := make(map[string][]int64)
	tagsByCategory := make(map[string]map[string]int)
	for _, p := range products {
		pricesByCategory[p.Category] = append(pricesByCategory[p.Category], p.PriceCents)
		tags := tagsByCategory[p.Category]
		if tags == nil {
			tags = make(map[string]int)
			tagsByCategory[p.Category] = tags
		}
		for _, t := range p.Tags {
			tags[t]++
		}
	}

	stats := make([]CategoryStats, 0, len(pricesByCategory))
	for category, prices := range pricesByCategory {
		stats = append(stats, summarise(category, prices, tagsByCategory[category]))
	}
	slices.SortFunc(stats, func(a, b CategoryStats) int {
		if c := cmp.Compare(b.Products, a.Products); c != 0 {
			return c
		}
		return cmp.Compare(a.Category, b.Category)
	})
	return Report{Products: len(products), Categories: stats}
}

// summarise computes one category's statistics. It sorts prices in place.
func summarise(category string, prices []int64, tags map[string]int) CategoryStats {
	slices.Sort(prices)
	var sum int64
	for _, p := range prices {
		sum += p
	}
	return CategoryStats{
		Category:         category,
		Products:         len(prices),
		MinPriceCents:    prices[0],
		MedianPriceCents: percentile(prices, 50),
		P90PriceCents:    percentile(prices, 90),
		MaxPriceCents:    prices[len(prices)-1],
		MeanPriceCents:   sum / int64(len(prices)),
		TopTags:          topTags(tags, topTagsPerCategory),
	}
}

// percentile returns the nearest-rank percentile of sorted, non-empty values.
func percentile(sorted []int64, pct int) int64 {
	rank := (pct*len(sorted) + 99) / 100 // ceil(pct/100 * n)
	return sorted[max(rank, 1)-1]
}

// topTags returns the n most frequent tags, ties broken alphabetically so
// the report is stable.
func topTags(counts map[string]int, n int) []TagCount {
	tags := make([]TagCount, 0, len(counts))
	for tag, count := range counts {
		tags = append(tags, TagCount{Tag: tag, Count: count})
	}
	slices.SortFunc(tags, func(a, b TagCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Tag, b.Tag)
	})
	return tags[:min(len(tags), n)]
}
