#!/usr/bin/env python3
"""Where a duet round's time goes, from perfgate reports: for each report,
the median over its gating rounds (profile rounds left out, and the last
gating round, which has no next round to time against) of

  round      one round's start to the next round's start
  ready      the start to both sides ready (the later of the two)
  warm-up, window, capture   each run's timing fields
  to stop    the capture's end to both sides stopped (each run's end is
             its start plus its total_ms)
  between    both stopped to the next round's start (its binaries, and on
             a cluster its images, and anything else between rounds)

    python3 scripts/round-times.py results/*/report.json
"""
import datetime
import json
import statistics
import sys


def when(stamp):
    # Go writes nanoseconds; Python reads at most microseconds.
    stamp = stamp.rstrip("Z")
    if "." in stamp:
        whole, frac = stamp.split(".")
        stamp = whole + "." + frac[:6]
    return datetime.datetime.fromisoformat(stamp)


def round_times(report):
    by = {}
    for run in report["runs"]:
        by.setdefault(run["pair"], []).append(run)
    pairs = sorted(by)
    for this, following in zip(pairs, pairs[1:]):
        runs, nxt = by[this], by[following]
        if any(r.get("profile_round") for r in runs + nxt):
            continue
        start = min(when(r["started"]) for r in runs)
        end = max(when(r["started"]) + datetime.timedelta(milliseconds=r["timing"]["total_ms"]) for r in runs)
        timing = [r["timing"] for r in runs]
        ready = max(t["start_to_ready_ms"] for t in timing) / 1e3
        warmup = timing[0]["warmup_ms"] / 1e3
        window = timing[0]["window_ms"] / 1e3
        capture = timing[0]["capture_ms"] / 1e3
        span = (end - start).total_seconds()
        yield {
            "round": (min(when(r["started"]) for r in nxt) - start).total_seconds(),
            "ready": ready,
            "warm-up": warmup,
            "window": window,
            "capture": capture,
            "to stop": span - ready - warmup - window - capture,
            "between": (min(when(r["started"]) for r in nxt) - end).total_seconds(),
        }


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    columns = ["round", "ready", "warm-up", "window", "capture", "to stop", "between"]
    print("| report | rounds | " + " | ".join(columns) + " |")
    print("|---|--:|" + "--:|" * len(columns))
    for path in paths:
        with open(path) as f:
            rows = list(round_times(json.load(f)))
        if not rows:
            print("| %s | 0 |%s" % (path, " |" * len(columns)))
            continue
        medians = ["%.2f s" % statistics.median(r[c] for r in rows) for c in columns]
        print("| %s | %d | %s |" % (path, len(rows), " | ".join(medians)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
