package attribution

import (
	"strings"

	"github.com/google/pprof/profile"
)

// frame is one function of a sample's stack.
type frame struct {
	name string
	line int64 // the line in the function where the stack was
	src  source
}

// source is a function's file (as the binary recorded it: with
// -trimpath, its import path) and first line.
type source struct {
	file string
	line int64
}

// stack is a sample's functions from the leaf to the root, inlined
// functions in their own frames (pprof lists a location's innermost
// function first).
func stack(s *profile.Sample, cache names) []frame {
	var fs []frame
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			fs = append(fs, frame{name: cache.of(line.Function), line: line.Line,
				src: source{line.Function.Filename, line.Function.StartLine}})
		}
	}
	return fs
}

// RuntimeInternal reports whether a function belongs to the Go runtime or
// the standard library's internals rather than to code a pull request
// changes or calls on purpose.
func RuntimeInternal(name string) bool {
	for _, prefix := range []string{"runtime.", "runtime/", "internal/", "sync/atomic.", "syscall.", "gcWriteBarrier", "aeshash"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// site is where a sample's cost counts as a function's own: the leaf, or,
// when the leaf is inside the runtime (runtime.mapassign_faststr,
// runtime.makeslice, runtime.mallocgc), the nearest caller outside it,
// with via naming the runtime function the cost was in. An allocation is
// then charged to the code that asked for it ("handleSearch, via
// runtime.mapassign_faststr"), not to the runtime that carried it out. A
// stack entirely inside the runtime (the garbage collector's workers, the
// scheduler) is its own site. at is the site's index in fs.
func site(fs []frame) (at int, via string) {
	for i, f := range fs {
		if !RuntimeInternal(f.name) {
			if i > 0 {
				via = fs[0].name
			}
			return i, via
		}
	}
	return 0, ""
}

// Code tells the service's own functions from everything it calls: the
// standard library, golang.org/x, and the modules its build lists as
// dependencies.
type Code struct{ dependencies []string }

// OwnCode reads the service's dependencies from the builds' `go version
// -m` outputs (their dep and => lines).
func OwnCode(buildInfos ...string) Code {
	var c Code
	for _, info := range buildInfos {
		for _, line := range strings.Split(info, "\n") {
			fields := strings.Fields(line)
			if len(fields) >= 2 && (fields[0] == "dep" || fields[0] == "=>") {
				c.dependencies = append(c.dependencies, fields[1])
			}
		}
	}
	return c
}

// Owns reports whether function is the service's own code: package main,
// or an import path whose first element has a dot (example.com/...,
// github.com/...), outside golang.org/x and the dependencies. A driver
// that the service calls (pgx under database/sql) is where a cost goes,
// not where it comes from.
func (c Code) Owns(function string) bool {
	first, _, nested := strings.Cut(function, "/")
	if !nested { // "time.NewTimer", "main.handler": a standard package or main
		return strings.HasPrefix(function, "main.")
	}
	if !strings.Contains(first, ".") || strings.HasPrefix(function, "golang.org/x/") {
		return false
	}
	for _, m := range c.dependencies {
		if strings.HasPrefix(function, m+"/") || strings.HasPrefix(function, m+".") {
			return false
		}
	}
	return true
}

// callersAbove is, for each frame of a stack (leaf first) that is not the
// service's own, the service's own frame nearest above it (its caller in
// the service's code), nil where there is none or the frame is the
// service's own: a cum row of a library function (database/sql's conn)
// names the service function that reached it, and the site of a flat
// row's cost (site) its caller.
func (c Code) callersAbove(fs []frame) []*frame {
	out := make([]*frame, len(fs))
	var nearest *frame
	for i := len(fs) - 1; i >= 0; i-- {
		if c.Owns(fs[i].name) {
			nearest = &fs[i]
			continue
		}
		out[i] = nearest
	}
	return out
}
