#!/usr/bin/env python3
"""One Markdown row per gate: its verdict and rounds, the per-round CPU
spread and "could detect" the gate printed, the spread again from the
median absolute deviation (1.4826 x MAD of the rounds' log-ratios, which
one stray round does not move), the CPU estimate with its interval, the
function alignment of its relinks, and how long it ran. Then, per group
of gates (the directory name without its trailing -N), the median spread
and the verdicts.

    python3 scripts/gate-table.py results/align-gates/*/

Each argument is a gate's --out directory (report.json, report.md).
Standard library only.
"""
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import rounds  # noqa: E402

MEASURED = re.compile(r"per-round spread ([0-9.]+)%, could detect ≥ ([0-9.]+)%")


def row(out):
    report = json.load(open(os.path.join(out, "report.json")))
    md = open(os.path.join(out, "report.md")).read()
    m = MEASURED.search(md)
    spread, detect = (float(m.group(1)), float(m.group(2))) if m else (None, None)
    ratios = [math.log(h["figures"]["cpu_us_per_req"] / b["figures"]["cpu_us_per_req"])
              for _, b, h in rounds(report) if not b.get("profiles")]
    center = statistics.median(ratios)
    mad = 1.4826 * statistics.median(abs(x - center) for x in ratios)
    cpu = next(x for x in report["metrics"] if x["name"] == "cpu")
    seconds = None
    if report.get("started") and report.get("finished"):
        seconds = (instant(report["finished"]) - instant(report["started"])).total_seconds()
    align = report["build"]["base"].get("layout_align", 0)
    # Before layout_align, -funcalign came through service.build.ldflags.
    given = re.search(r"-funcalign=(\d+)", report["config"]["service"].get("build", {}).get("ldflags", ""))
    if not align and given:
        align = int(given.group(1))
    if report["config"].get("layout") == "build":
        align = "one build"
    return {
        "name": os.path.basename(os.path.normpath(out)),
        "verdict": "%s (%d)" % (report["verdict"], cpu["pairs"]),
        "verdict_only": report["verdict"],
        "spread": spread, "mad": 100 * mad, "detect": detect,
        "cpu": "%+.2f%% [%+.2f, %+.2f]" % (100 * cpu["delta"], 100 * cpu["ci"][0], 100 * cpu["ci"][1]),
        "align": align, "seconds": seconds,
    }


def instant(rfc3339):
    """A report's time (RFC 3339, nanoseconds) as a datetime, to the second."""
    return datetime.strptime(rfc3339[:19], "%Y-%m-%dT%H:%M:%S")


def fmt(x, f="%.1f%%"):
    return "-" if x is None else f % x


def main(dirs):
    # A gate still running has no report.md yet.
    rows = [row(d) for d in dirs if os.path.exists(os.path.join(d, "report.md"))]
    print("| gate | align | verdict (rounds) | per-round spread | MAD spread | could detect | CPU per request | time |")
    print("|---|---:|---|---:|---:|---:|---|---:|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["align"] or "linker's", r["verdict"], fmt(r["spread"]), fmt(r["mad"], "%.2f%%"),
            fmt(r["detect"]), r["cpu"], fmt(r["seconds"], "%.0f s")))
    groups = defaultdict(list)
    for r in rows:
        groups[re.sub(r"-\d+$", "", r["name"])].append(r)
    print()
    print("| group | gates | median spread | median MAD spread | median could detect | verdicts |")
    print("|---|---:|---:|---:|---:|---|")
    for name, rs in sorted(groups.items()):
        verdicts = defaultdict(int)
        for r in rs:
            verdicts[r["verdict_only"]] += 1
        med = lambda k: statistics.median(r[k] for r in rs if r[k] is not None)
        print("| %s | %d | %.1f%% | %.2f%% | %.1f%% | %s |" % (
            name, len(rs), med("spread"), med("mad"), med("detect"),
            ", ".join("%s %d" % kv for kv in sorted(verdicts.items()))))


if __name__ == "__main__":
    main(sys.argv[1:])
