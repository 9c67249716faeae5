package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// PlaceholderOut is where service.build.command writes the binary: the
// path perfgate gives each side's build.
const PlaceholderOut = "{out}"

// CgoTargets are the targets that run a cgo binary: the local one, on the
// machine whose C libraries it was linked against. The docker, kind and
// kubernetes targets run the binary alone in an image FROM scratch,
// where a dynamically linked binary finds no C library to load.
var CgoTargets = []string{"local"}

var buildTag = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

const (
	tagsWant         = "a list of build tags like [netgo, prod]"
	ldflagsWant      = `the linker flags as go build -ldflags takes them, like "-s -X main.version=perf"`
	cgoWant          = "true or false"
	buildCommandWant = `a command as a list of strings that writes the binary to {out}, like [make, build, "OUT={out}"] (no shell: write ["sh", "-c", "..."] for one)`
)

// serviceBuild reads the service.build mapping.
func (d *diagnostics) serviceBuild(n *yaml.Node, field string, b *Build) {
	d.mapping(n, field, func(key string, v *yaml.Node, f string) {
		switch key {
		case "tags":
			d.stringList(v, f, tagsWant, &b.Tags)
		case "ldflags":
			scalarInto(d, v, f, ldflagsWant, parseString, &b.LDFlags)
		case "cgo":
			scalarInto(d, v, f, cgoWant, parseBool, &b.CGO)
		case "command":
			d.stringList(v, f, buildCommandWant, &b.Command)
		}
	})
}

func parseBool(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &Error{Value: s, Problem: "is not true or false"}
}

// validateBuild checks service.build: tag names, a command that names
// {out} and nothing else, what a custom command excludes, and that the
// target runs a cgo binary.
func (d *diagnostics) validateBuild(c *Config) {
	b := &c.Service.Build
	for i, tag := range b.Tags {
		if !buildTag.MatchString(tag) {
			d.fail(fmt.Sprintf("service.build.tags[%d]", i), tag, Error{Problem: "is not a build tag", Want: "one tag per item, of letters, digits, _ and ., like [netgo, prod]"})
		}
	}
	if strings.Contains(b.LDFlags, "-randlayout") {
		d.fail("service.build.ldflags", b.LDFlags, Error{Problem: "sets -randlayout, which perfgate draws itself", Want: ldflagsWant + `; layout: random relinks every round with a layout of its own`})
	}
	d.validateBuildCommand(c)
	if problem := CgoTargetProblem(c.Target); problem != "" && b.CGO && !d.anyBad("target") {
		d.fail("service.build.cgo", "true", Error{Problem: problem, Want: "target: local with cgo: true, or cgo: false with a static binary on " + c.Target})
	}
}

func (d *diagnostics) validateBuildCommand(c *Config) {
	b := &c.Service.Build
	if len(b.Command) == 0 {
		return
	}
	if strings.TrimSpace(b.Command[0]) == "" {
		d.fail("service.build.command[0]", b.Command[0], Error{Problem: "is empty", Want: "the program to run, like make or ./scripts/build.sh"})
	}
	for i, a := range b.Command {
		for _, m := range placeholderPattern.FindAllString(a, -1) {
			if m != PlaceholderOut {
				d.fail(fmt.Sprintf("service.build.command[%d]", i), a, Error{Problem: "uses the placeholder " + m, Want: "only {out}, the path the binary must be written to"})
			}
		}
	}
	if !slices.ContainsFunc(b.Command, func(a string) bool { return strings.Contains(a, PlaceholderOut) }) {
		d.fail("service.build.command", "", Error{Problem: "does not name {out}, so perfgate cannot tell where the binary goes", Want: buildCommandWant})
	}
	for _, other := range []struct {
		key string
		set bool
	}{{"tags", len(b.Tags) > 0}, {"ldflags", b.LDFlags != ""}, {"cgo", b.CGO}} {
		if other.set {
			d.fail("service.build."+other.key, "", Error{Problem: "has no effect with service.build.command, which builds the binary itself", Want: "the " + other.key + " in the command, and no service.build." + other.key})
		}
	}
	if c.Layout == "random" {
		d.fail("service.build.command", "", Error{
			Problem: "builds a binary perfgate cannot relink with a layout of its own per round, which layout: random (the default) needs",
			Want:    "layout: build with service.build.command (a layout bias of about ±0.6% CPU per request is then not averaged out; docs/services.md), or go build's own options tags, ldflags and cgo",
		})
	}
}

// CgoTargetProblem says why target cannot run a cgo binary, or "" when it
// can. The session asks again when --target overrides the file's.
func CgoTargetProblem(target string) string {
	if slices.Contains(CgoTargets, target) || !slices.Contains(Targets, target) {
		return ""
	}
	return "is not supported on target " + target + ": its image holds the binary alone, FROM scratch, and a cgo binary is linked against C libraries the image does not have"
}
