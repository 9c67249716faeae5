#!/usr/bin/env python3
"""Decomposes a duet round's CPU spread into layout and the rest, from the
gates of scripts/layout-survey.sh: one reference binary R against itself
and against layouts L1..Ln, several rounds each.

    python3 scripts/layout-survey.py results/survey/example [...]

Within one Li every round runs the same two layouts, so the spread of its
rounds' log-ratios (head/base CPU per request) is everything but layout:
the machine, the generator, the window. The means of the Li differ beyond
that by the spread of a layout's effect on one binary, sigma_L (one-way
random effects: sigma_L^2 = (MS_between - MS_within) / rounds). A gate that
draws a layout per side and round sees per round

    sigma_w^2 + 2 sigma_L^2            (layout: random)
    sigma_w^2 + 2 sigma_L^2 / K        (K layouts per side, averaged)

and a gate with one build per side sigma_w (its layouts are then a bias).
The 90% interval of sigma_L is the exact one of a balanced one-way design
(the ratio sigma_L^2 / sigma_w^2 from MS_between / MS_within and the F
distribution), scaled by the estimate of sigma_w."""
import json
import math
import os
import statistics
import sys

from rounds import rounds  # scripts/rounds.py: a report's rounds with both sides valid


def log_ratios(path):
    """The CPU log-ratios of a gate's rounds with both sides valid."""
    report = json.load(open(path))
    return [math.log(h["figures"]["cpu_us_per_req"] / b["figures"]["cpu_us_per_req"]) for _, b, h in rounds(report)]


def components(groups):
    """sigma_w and sigma_L (fractions) of groups of log-ratios, and the 90%
    interval of sigma_L."""
    groups = [g for g in groups if len(g) >= 2]
    within = sum(sum((x - statistics.mean(g)) ** 2 for x in g) for g in groups)
    df_within = sum(len(g) - 1 for g in groups)
    df_between = len(groups) - 1
    ms_within = within / df_within
    grand = statistics.mean(x for g in groups for x in g)
    ms_between = sum(len(g) * (statistics.mean(g) - grand) ** 2 for g in groups) / df_between
    per_group = statistics.mean(len(g) for g in groups)
    sigma_l2 = max(0.0, (ms_between - ms_within) / per_group)
    ratio = ms_between / ms_within
    bounds = []
    for q in (0.95, 0.05):
        theta = max(0.0, (ratio / f_quantile(q, df_between, df_within) - 1) / per_group)
        bounds.append(math.sqrt(theta * ms_within))
    return math.sqrt(ms_within), math.sqrt(sigma_l2), bounds


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (continued
    fraction, Numerical Recipes' betacf)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > 1e-300 else 1e-300)
    f = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + numerator / c
            c = c if abs(c) > 1e-300 else 1e-300
            f *= c * d
        if abs(c * d - 1) < 1e-12:
            break
    return front * f


def f_quantile(q, d1, d2):
    """The q quantile of the F distribution with d1 and d2 degrees of
    freedom, by bisection on its CDF."""
    cdf = lambda x: betainc(d1 / 2, d2 / 2, d1 * x / (d1 * x + d2))
    low, high = 0.0, 1.0
    while cdf(high) < q:
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) < q else (low, mid)
    return (low + high) / 2


def pct(x):
    return "%.2f%%" % (100 * x)


def survey(out):
    print("==", out, open(os.path.join(out, "survey")).readline().strip())
    names = sorted((d for d in os.listdir(out) if os.path.isfile(os.path.join(out, d, "report.json"))),
                   key=lambda d: (d != "R", int(d[1:]) if d[1:].isdigit() else 0))
    groups = {}
    for name in names:
        xs = log_ratios(os.path.join(out, name, "report.json"))
        groups[name] = xs
        sd = pct(statistics.stdev(xs)) if len(xs) > 1 else "-"
        print("  %-4s rounds %2d  mean %+.2f%%  SD %s" % (name, len(xs), 100 * statistics.mean(xs) if xs else 0, sd))
    layouts = [g for n, g in groups.items() if n != "R" and len(g) >= 2]
    if len(layouts) < 3:
        print("  too few layouts with two valid rounds to decompose")
        return
    sigma_w, sigma_l, (low, high) = components(layouts)
    print("  within a layout (machine, generator, window): sigma_w %s" % pct(sigma_w))
    print("  one binary's layout: sigma_L %s [%s, %s]" % (pct(sigma_l), pct(low), pct(high)))
    for k in (1, 2, 4, 8):
        print("  per-round SD with %d layout(s) per side and round: %s" % (k, pct(math.sqrt(sigma_w ** 2 + 2 * sigma_l ** 2 / k))))
    if groups.get("R"):
        print("  R against itself: mean %+.2f%% over %d rounds (a copy's bias, expected 0)" % (100 * statistics.mean(groups["R"]), len(groups["R"])))


def main(argv):
    for out in argv:
        survey(out)


if __name__ == "__main__":
    main(sys.argv[1:])
