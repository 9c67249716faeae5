package main

import (
	"strings"

	"github.com/perfgate/perfgate/engine/internal/render"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// expectedHint is the hint each seed incident's plant should fire
// (docs/hints.md); plants without one (the power plants, A/A) have none.
var expectedHint = map[string]string{
	"alloc-sprintf":   "formatting-on-hot-path",
	"time-after":      "timer-per-request",
	"tls-per-request": "tls-handshake-per-request",
	"dns-per-request": "dns-per-request",
	"pool-lost":       "dial-per-request",
	"goroutine-leak":  "goroutine-growth",
	"heap-leak":       "heap-growth",
	"global-lock":     "mutex-contention",
	"cpu-regexp":      "regexp-compile-per-request",
	// The slope plants (examples/regressions/slope): a cache that fills
	// up is named but not called a leak; a leak that starts once it is
	// full is.
	"bounded-cache": "heap-fills-up",
	"late-leak":     "heap-growth",
}

// Judgement is what one gate's report said about its plant.
type Judgement struct {
	Plant, Verdict string
	// First is the first function of "Where it changed", "" when none.
	First string
	// Rows is how many functions "Where it changed" lists.
	Rows int
	// Named: a row names a planted function (as the function or as the
	// service's caller it reports); OnFirstScreen: among the first six;
	// LineNamed: with a line the patch added.
	Named, OnFirstScreen, LineNamed bool
	// Hint is the expected hint; Fired whether it fired, and NamesPlace
	// whether its message names a planted function.
	Hint              string
	Fired, NamesPlace bool
}

// firstScreen is how many functions the comment shows unfolded
// (render.shownFunctions).
const firstScreen = 6

// Judge reads a report against the places its plant changed.
func Judge(plant string, rep *report.Report, places []Place) Judgement {
	j := Judgement{Plant: plant, Verdict: rep.Verdict, Hint: hintExpected(plant, rep)}
	rows, _ := render.ReviewedFunctions(rep)
	j.Rows = len(rows)
	if len(rows) > 0 {
		j.First = rows[0].Name
	}
	for i, f := range rows {
		for _, p := range places {
			viaName := planted(f.Name, p.Function)
			viaCaller := planted(f.Caller, p.Function)
			if !viaName && !viaCaller {
				continue
			}
			j.Named = true
			j.OnFirstScreen = j.OnFirstScreen || i < firstScreen
			line := f.CallLine
			if !viaName {
				line = f.CallerLine
			}
			j.LineNamed = j.LineNamed || contains(p.Lines, line)
		}
	}
	if j.Hint == shapeHint {
		// A shape hint is about the gate, not a function: it names none.
		for _, h := range rep.ServiceHints {
			j.Fired = j.Fired || h.Rule == shapeHint
		}
		return j
	}
	for _, h := range rep.Hints {
		if h.Rule != j.Hint {
			continue
		}
		j.Fired = true
		for _, p := range places {
			j.NamesPlace = j.NamesPlace || strings.Contains(h.Message, shortName(p.Function))
		}
	}
	return j
}

// shapeHint is the service hint that says a gate's shape (GOMAXPROCS 1)
// cannot reveal lock contention.
const shapeHint = "contention-hidden"

// hintExpected is the hint plant's gate should give: its seed incident's,
// except that lock contention at GOMAXPROCS 1 cannot show (one goroutine
// runs at a time), where the report must say so instead.
func hintExpected(plant string, rep *report.Report) string {
	if expectedHint[plant] == "mutex-contention" && rep.Environment.GOMAXPROCS == 1 {
		return shapeHint
	}
	return expectedHint[plant]
}

// planted reports whether a profile's function name is the planted
// function or a closure inside it (normalised: Handler.func*), also when
// the compiler inlined the function that makes the closure into its
// caller: the closure is then named after both (power plants wrap
// handlers in httpapi.planted, inlined into Register:
// "httpapi.(*Server).Register.planted.func*").
func planted(name, function string) bool {
	if name == "" {
		return false
	}
	if name == function || strings.HasPrefix(name, function+".") {
		return true
	}
	slash := strings.LastIndex(function, "/")
	dot := strings.Index(function[slash+1:], ".")
	if dot < 0 {
		return false
	}
	pkg, simple := function[:slash+1+dot], function[slash+1+dot+1:]
	return strings.HasPrefix(name, pkg+".") && strings.Contains(name, "."+simple+".func")
}

// shortName is a function's name from its package on
// ("httpapi.(*Server).handleSearch"), as hints may shorten it.
func shortName(function string) string {
	head := function
	if i := strings.IndexAny(function, "("); i >= 0 {
		head = function[:i]
	}
	if i := strings.LastIndex(head, "/"); i >= 0 {
		return function[i+1:]
	}
	return function
}

func contains(lines []int64, line int64) bool {
	for _, l := range lines {
		if l == line {
			return true
		}
	}
	return false
}
