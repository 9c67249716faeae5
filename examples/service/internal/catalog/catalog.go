// Package catalog holds the product catalog the example service serves.
//
// The catalog is generated from a fixed seed instead of being loaded from a
// database so that every build of the service, base or head, starts with
// byte-for-byte the same data. Performance comparisons are only meaningful
// when both sides do the same work.
package catalog

import (
	"fmt"
	"math/rand/v2"
)

// Product is one item for sale.
type Product struct {
	ID         int      `json:"id"`
	Name       string   `json:"name"`
	Category   string   `json:"category"`
	Tags       []string `json:"tags"`
	PriceCents int64    `json:"priceCents"`
}

// Catalog is an immutable, ID-addressable list of products. It is safe for
// concurrent use because nothing mutates it after Generate returns.
type Catalog struct {
	products []Product // products[i].ID == i+1
}

// DefaultSize is the number of products the server generates: large enough
// that a search scan costs tens of microseconds, small enough to start fast.
const DefaultSize = 2000

// DefaultSeed fixes the generated catalog. Changing it changes every
// response body, so only do it on purpose.
const DefaultSeed = 20240501

var (
	adjectives = []string{
		"Alpha", "Nova", "Classic", "Urban", "Compact", "Deluxe",
		"Rustic", "Polar", "Summit", "Harbor", "Ember", "Quiet",
	}
	materials = []string{
		"Steel", "Oak", "Copper", "Bamboo", "Glass", "Ceramic",
		"Linen", "Wool", "Walnut", "Carbon",
	}
	nounsByCategory = map[string][]string{
		"kitchen": {"Kettle", "Skillet", "Knife", "Mug", "Cutting Board"},
		"garden":  {"Shovel", "Planter", "Watering Can", "Pruner"},
		"tools":   {"Hammer", "Wrench", "Screwdriver", "Toolbox"},
		"outdoor": {"Tent", "Lantern", "Backpack", "Camp Stool"},
		"home":    {"Lamp", "Blanket", "Chair", "Shelf", "Mirror"},
		"office":  {"Desk", "Notebook", "Pen", "Monitor Stand"},
		"sports":  {"Racket", "Water Bottle", "Yoga Mat", "Jump Rope"},
	}
	// categories fixes the iteration order of nounsByCategory; ranging over
	// the map directly would make generation non-deterministic.
	categories = []string{"kitchen", "garden", "tools", "outdoor", "home", "office", "sports"}
	tagPool    = []string{
		"eco", "bestseller", "new", "gift", "sale", "premium",
		"handmade", "waterproof", "imported", "limited",
	}
)

// Generate builds a catalog of size products from seed. The same arguments
// always produce the same catalog: math/rand/v2's PCG is specified to be
// stable across Go releases.
func Generate(size int, seed uint64) *Catalog {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	products := make([]Product, size)
	for i := range products {
		category := categories[rng.IntN(len(categories))]
		nouns := nounsByCategory[category]
		name := fmt.Sprintf("%s %s %s",
			adjectives[rng.IntN(len(adjectives))],
			materials[rng.IntN(len(materials))],
			nouns[rng.IntN(len(nouns))])
		products[i] = Product{
			ID:         i + 1,
			Name:       name,
			Category:   category,
			Tags:       pickTags(rng, 1+rng.IntN(3)),
			PriceCents: 299 + rng.Int64N(49700),
		}
	}
	return &Catalog{products: products}
}

// pickTags returns n distinct tags in pool order, so that equal tag sets
// always render the same way.
func pickTags(rng *rand.Rand, n int) []string {
	chosen := make([]bool, len(tagPool))
	for picked := 0; picked < n; {
		i := rng.IntN(len(tagPool))
		if !chosen[i] {
			chosen[i] = true
			picked++
		}
	}
	tags := make([]string, 0, n)
	for i, ok := range chosen {
		if ok {
			tags = append(tags, tagPool[i])
		}
	}
	return tags
}

// Len reports the number of products.
func (c *Catalog) Len() int { return len(c.products) }

// Product returns the product with the given ID.
func (c *Catalog) Product(id int) (Product, bool) {
	if id < 1 || id > len(c.products) {
		return Product{}, false
	}
	return c.products[id-1], true
}

// All returns every product in ID order. The slice is shared: callers must
// not modify it.
func (c *Catalog) All() []Product { return c.products }
