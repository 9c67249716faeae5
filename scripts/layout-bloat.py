#!/usr/bin/env python3
"""The `bloat` A/A' plant of docs/benchmarks.md ("Layout padding"): a Go
file of N never-run functions for a service's main package, each reachable
only through the one before it, the first from init behind a condition
that never holds, so that the linker keeps them and no request runs them.
It grows the text section and what any code grows with it (the function
tables of pclntab and the symbol table), and adds no data the GC scans and
no init work.

    python3 scripts/layout-bloat.py 2625 base-copy/cmd/server/zz_pad.go

2,625 functions made the example service's text section the size of the
dependency plant's (4,409 KB) with go1.26.8 on amd64; `size -A` of the
built binary tells.
"""
import sys

n = int(sys.argv[1])
out = ["// Code generated for an A/A' plant: code that is linked but never run.", "", "package main", "",
       "// padArg is never negative: the functions below are linked, never run.",
       "var padArg = 1", "",
       "func init() {", "\tif padArg < 0 {", "\t\tpadArg = pad0(padArg)", "\t}", "}", ""]
for i in range(n):
    nxt = f"pad{i+1}(x)" if i + 1 < n else "x"
    out.append(f"""//go:noinline
func pad{i}(x int) int {{
	switch x % 7 {{
	case 0:
		x = x*{i+3} + {i*7+1}
	case 1:
		x = x ^ {i*13+5}
	case 2:
		x = (x << 3) - {i+11}
	case 3:
		x = x/{i%9+2} + {i}
	case 4:
		x = x*x - {i*3}
	case 5:
		x = (x >> 2) | {i*17}
	default:
		return {nxt}
	}}
	return x
}}
""")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
