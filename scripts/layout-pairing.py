#!/usr/bin/env python3
"""What pairing layouts gains on a service, from gates run with
layout_pairing: alternate (odd rounds relinked from one seed for both
sides by perfgate's paired-layout linker, even rounds from a seed per
side): per gate, the SD of the CPU log-ratios of its paired rounds and
of its independent ones; then, over all gates, the pooled SDs (each
gate's rounds about their own mean), their ratio with a 90% bootstrap
interval (rounds resampled within each gate), and the share of the
independent rounds' variance that pairing took out.

Both kinds of round run in one gate, interleaved, so the machine's
drift over minutes weighs on both alike; a round is paired when its
base and head runs carry one layout_seed.

    python3 scripts/layout-pairing.py results/alt-*/

Each argument is a gate's --out directory. Standard library only.
"""
import json
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rounds import rounds  # noqa: E402


def split(report):
    """The CPU log-ratios of a gate's valid gating rounds, paired and
    independent."""
    paired, independent = [], []
    for _, base, head in rounds(report):
        if base.get("profile_round") or head.get("profile_round"):
            continue
        x = math.log(head["figures"]["cpu_us_per_req"] / base["figures"]["cpu_us_per_req"])
        (paired if base.get("layout_seed") == head.get("layout_seed") else independent).append(x)
    return paired, independent


def pooled_variance(groups):
    """The variance of every group's values about their own group's mean."""
    ss = sum(sum((x - statistics.mean(g)) ** 2 for x in g) for g in groups if len(g) > 1)
    dof = sum(len(g) - 1 for g in groups if len(g) > 1)
    return ss / dof if dof else float("nan")


def pct(v):
    return "%.2f%%" % (100 * math.sqrt(v))


def main(dirs):
    gates = []
    print("| gate | paired rounds | paired SD | independent rounds | independent SD |")
    print("|---|---:|---:|---:|---:|")
    for d in dirs:
        with open(os.path.join(d, "report.json")) as f:
            paired, independent = split(json.load(f))
        if len(paired) < 2 or len(independent) < 2:
            print("| %s | %d | - | %d | - |" % (os.path.basename(d.rstrip("/")), len(paired), len(independent)))
            continue
        gates.append((paired, independent))
        print("| %s | %d | %.2f%% | %d | %.2f%% |" % (os.path.basename(d.rstrip("/")), len(paired),
              100 * statistics.stdev(paired), len(independent), 100 * statistics.stdev(independent)))
    if not gates:
        return
    vp = pooled_variance([p for p, _ in gates])
    vi = pooled_variance([i for _, i in gates])
    rng = random.Random(52)
    ratios = []
    for _ in range(2000):
        bp = [[rng.choice(p) for _ in p] for p, _ in gates]
        bi = [[rng.choice(i) for _ in i] for _, i in gates]
        ratios.append(pooled_variance(bp) / pooled_variance(bi))
    ratios.sort()
    lo, hi = ratios[int(0.05 * len(ratios))], ratios[int(0.95 * len(ratios)) - 1]
    print()
    print("%d gates: pooled SD paired %s, independent %s; variance ratio %.2f (90%% bootstrap %.2f to %.2f); "
          "pairing took out %.0f%% of the independent rounds' variance (layout's share: SD %s)"
          % (len(gates), pct(vp), pct(vi), vp / vi, lo, hi, 100 * (1 - vp / vi), pct(max(vi - vp, 0))))


if __name__ == "__main__":
    main(sys.argv[1:])
