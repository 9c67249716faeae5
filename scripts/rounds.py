#!/usr/bin/env python3
"""Per-round figures of perfgate results: for each round (pair) with both
sides valid, base and head CPU/request and allocations/request and their
log-ratio; then the mean and SD of the log-ratios, which are what the
paired statistics see (docs/statistics.md).

    python3 scripts/rounds.py [--label NAME] results/report.json...
"""
import json
import math
import statistics
import sys


def rounds(report):
    by = {}
    for run in report["runs"]:
        by.setdefault(run["pair"], {})[run["side"]] = run
    for pair, sides in sorted(by.items()):
        if all(s in sides and sides[s]["valid"] for s in ("base", "head")):
            yield pair, sides["base"], sides["head"]


def spread(xs):
    if len(xs) < 2:
        return "n=%d" % len(xs)
    return "n=%d mean %+.2f%% SD %.2f%%" % (len(xs), 100 * statistics.mean(xs), 100 * statistics.stdev(xs))


def main(argv):
    label = ""
    if argv[:1] == ["--label"]:
        label, argv = argv[1], argv[2:]
    for path in argv:
        report = json.load(open(path))
        cpu, allocs = [], []
        print("== %s %s (%s, seed %s)" % (label, path, report.get("experiment", "?"), report.get("seed")))
        for pair, base, head in rounds(report):
            b, h = base["figures"], head["figures"]
            x = math.log(h["cpu_us_per_req"] / b["cpu_us_per_req"])
            cpu.append(x)
            line = "  round %2d  cpu/req %7.1f %7.1f µs  %+6.2f%%" % (pair, b["cpu_us_per_req"], h["cpu_us_per_req"], 100 * x)
            if b.get("allocs_per_req") and h.get("allocs_per_req"):
                y = math.log(h["allocs_per_req"] / b["allocs_per_req"])
                allocs.append(y)
                line += "  allocs/req %6.2f %6.2f  %+6.3f%%" % (b["allocs_per_req"], h["allocs_per_req"], 100 * y)
            duet = head.get("duet")
            if duet:
                line += "  shared CPU %3.0f%%  head started first %-5s led %-5s" % (
                    100 * duet["shared_cpu_busy"], duet["started_first"], duet["led_order"])
            print(line)
        invalid = sum(1 for r in report["runs"] if not r["valid"])
        print("  cpu log-ratio: %s; allocs log-ratio: %s; invalid runs: %d; verdict %s" % (
            spread(cpu), spread(allocs), invalid, report["verdict"]))


if __name__ == "__main__":
    main(sys.argv[1:])
