// Package inventory answers "how many of product X are in stock?", both as
// the owning side (Stock) and as a remote caller (Client).
package inventory

import "example.com/perfgate-example/internal/catalog"

// Stock holds the units available per product ID.
//
// Levels are static: the example never reserves or decrements stock, so a
// load test can place orders forever and every run sees the same answers.
// Reservations would make base and head runs diverge.
type Stock struct {
	available map[int]int
}

// NewStock derives a stock level for every product in c. The formula just
// spreads levels between 5 and 124 units deterministically.
func NewStock(c *catalog.Catalog) *Stock {
	available := make(map[int]int, c.Len())
	for _, p := range c.All() {
		available[p.ID] = 5 + (p.ID*37)%120
	}
	return &Stock{available: available}
}

// Available returns the units in stock for a product, and false if the
// product is not stocked at all.
func (s *Stock) Available(id int) (int, bool) {
	n, ok := s.available[id]
	return n, ok
}
