package config

import "slices"

// validateLayoutPairing checks layout_pairing: a pairing perfgate knows,
// set only where it applies (the relinks of layout: random).
func (d *diagnostics) validateLayoutPairing(c *Config) {
	if d.anyBad("layout_pairing") {
		return
	}
	if !slices.Contains(LayoutPairings, c.LayoutPairing) {
		d.fail("layout_pairing", c.LayoutPairing, Error{Problem: "is not a pairing of layouts perfgate knows", Want: layoutPairingWant()})
		return
	}
	if _, set := d.raw["layout_pairing"]; set && c.Layout == "build" {
		d.fail("layout_pairing", c.LayoutPairing, Error{
			Problem: "pairs the relinks of layout: random, and layout: build relinks nothing",
			Want:    "layout: random with layout_pairing, or no layout_pairing",
		})
	}
}
