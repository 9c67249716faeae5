package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestServiceBuildErrors: service.build's mistakes name their line, key,
// value and fix; a custom command needs {out} and layout: build.
func TestServiceBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml   string
		line         int
		field, value string
		also         string
	}{
		{"tag with a comma", svc + "  build: {tags: [\"netgo,prod\"]}\n", 4, "service.build.tags[0]", "netgo,prod", "one tag per item"},
		{"cgo not a bool", svc + "  build: {cgo: yes please}\n", 4, "service.build.cgo", "yes please", "is not true or false"},
		{"cgo on docker", svc + "  build: {cgo: true}\ntarget: docker\n", 4, "service.build.cgo", "true", "FROM scratch"},
		{"ldflags with randlayout", svc + "  build: {ldflags: -randlayout=3}\n", 4, "service.build.ldflags", "-randlayout=3", "perfgate draws itself"},
		{"command without out", svc + "  build: {command: [make, build]}\nlayout: build\n", 4, "service.build.command", "", "does not name {out}"},
		{"command with another placeholder", svc + "  build:\n    command: [make, \"OUT={out}\", \"{addr}\"]\nlayout: build\n", 5, "service.build.command[2]", "{addr}", "only {out}"},
		{"command with random layout", svc + "  build: {command: [make, \"OUT={out}\"]}\n", 4, "service.build.command", "", "layout: build with service.build.command"},
		{"command with tags", svc + "  build: {command: [make, \"OUT={out}\"], tags: [prod]}\nlayout: build\n", 4, "service.build.tags", "", "has no effect with service.build.command"},
		{"layout_align not a power of two", svc + "layout_align: 48\n", 4, "layout_align", "48", "a power of two from 16 to 4096"},
		{"layout_align past a page", svc + "layout_align: 8192\n", 4, "layout_align", "8192", "a power of two from 16 to 4096"},
		{"layout_align with layout: build", svc + "layout: build\nlayout_align: 128\n", 5, "layout_align", "128", "layout: build relinks nothing"},
		{"ldflags with funcalign beside layout_align", svc + "  build: {ldflags: -funcalign=32}\n", 4, "service.build.ldflags", "-funcalign=32", "layout_align: 0 to keep"},
		{"layout_pairing unknown", svc + "layout_pairing: shared\n", 4, "layout_pairing", "shared", "one of independent, paired, alternate"},
		{"layout_pairing with layout: build", svc + "layout: build\nlayout_pairing: independent\n", 5, "layout_pairing", "independent", "layout: build relinks nothing"},
		{"unknown build key", svc + "  build: {flags: -race}\n", 4, "service.build.flags", "", "tags, ldflags, cgo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("perfgate.yml", []byte(tc.yaml))
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d: %v", len(errs), err)
			}
			e := errs[0]
			if e.Line != tc.line || e.Field != tc.field || e.Value != tc.value || !strings.Contains(e.Error(), tc.also) {
				t.Errorf("got line %d field %q value %q: %v\nwant line %d field %q value %q and %q", e.Line, e.Field, e.Value, e, tc.line, tc.field, tc.value, tc.also)
			}
		})
	}
}

func TestServiceBuildParses(t *testing.T) {
	c, err := Parse("perfgate.yml", []byte(svc+"  build:\n    command: [make, build, \"OUT={out}\"]\nlayout: build\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"make", "build", "OUT={out}"}; !reflect.DeepEqual(c.Service.Build.Command, want) {
		t.Errorf("command = %q, want %q", c.Service.Build.Command, want)
	}
	c, err = Parse("perfgate.yml", []byte(svc+"  build: {tags: [netgo, prod], ldflags: \"-s -w\", cgo: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Build{Tags: []string{"netgo", "prod"}, LDFlags: "-s -w", CGO: true}); !reflect.DeepEqual(c.Service.Build, want) {
		t.Errorf("build = %+v, want %+v", c.Service.Build, want)
	}
	// A production build's own alignment is kept where perfgate aligns
	// nothing: with layout_align: 0, or in layout: build's one build.
	for _, yaml := range []string{"layout_align: 0\n", "layout: build\n"} {
		c, err = Parse("perfgate.yml", []byte(svc+"  build: {ldflags: -funcalign=128}\n"+yaml))
		if err != nil {
			t.Errorf("%s with -funcalign in ldflags: %v", strings.TrimSpace(yaml), err)
		} else if c.Service.Build.LDFlags != "-funcalign=128" {
			t.Errorf("ldflags = %q", c.Service.Build.LDFlags)
		}
	}
	if c, err = Parse("perfgate.yml", []byte(svc+"layout_align: 4096\n")); err != nil || c.LayoutAlign != 4096 {
		t.Errorf("layout_align: 4096 (a page): %v, %d", err, c.LayoutAlign)
	}
	for _, pairing := range LayoutPairings {
		if c, err = Parse("perfgate.yml", []byte(svc+"layout_pairing: "+pairing+"\n")); err != nil || c.LayoutPairing != pairing {
			t.Errorf("layout_pairing: %s: %v, %q", pairing, err, c.LayoutPairing)
		}
	}
}
