package config

import (
	"strconv"
	"strings"
)

// validateLayoutAlign checks layout_align: an alignment the linker takes
// (-funcalign wants a power of two), set only where it applies (the
// relinks of layout: random), and not fought over by the user's own
// -funcalign in service.build.ldflags, which go build would let win or
// lose by its place in the flags.
func (d *diagnostics) validateLayoutAlign(c *Config) {
	if d.anyBad("layout_align") {
		return
	}
	align := c.LayoutAlign
	if align != 0 && (align < 16 || align > 4096 || align&(align-1) != 0) {
		d.fail("layout_align", strconv.Itoa(align), Error{Problem: "is not a function alignment the linker takes", Want: layoutAlignWant})
		return
	}
	if _, set := d.raw["layout_align"]; set && align != 0 && c.Layout == "build" {
		d.fail("layout_align", strconv.Itoa(align), Error{
			Problem: "aligns the relinks of layout: random, and layout: build relinks nothing",
			Want:    "layout: random with layout_align, or no layout_align (an alignment of each side's one build belongs in service.build.ldflags as -funcalign)",
		})
		return
	}
	if c.Layout == "random" && align != 0 && strings.Contains(c.Service.Build.LDFlags, "-funcalign") {
		d.fail("service.build.ldflags", c.Service.Build.LDFlags, Error{
			Problem: "sets -funcalign, which layout_align sets for every relink of layout: random (" + strconv.Itoa(align) + " bytes)",
			Want:    "layout_align: N for the alignment you want, or layout_align: 0 to keep the -funcalign of these flags",
		})
	}
}
