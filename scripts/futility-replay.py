#!/usr/bin/env python3
"""Replays recorded gates' CPU row under two rules for "unchanged".

An analysis, not the engine: it answers how many rounds the recorded A/A
gates would have needed if a gate could stop for "unchanged" once a CPU
regression beyond the threshold is ruled out at a miss rate spent like
alpha (BETA in all, half at the first look), instead of at the level of
the improvement test (this look's alpha over Holm's family). The columns
say "engine" for the second, the engine's rule until 2026-12-01; since
then the engine decides by the first (stats.MissRate, docs/statistics.md,
"Unchanged at a miss rate"), and `go test ./internal/verdict -run
TestReplayRecordedGates -replay ...` replays whole gates under it.

    python3 scripts/futility-replay.py results/kind-import/aa-*/report.json
    python3 scripts/futility-replay.py --simulate 0.013 2000   # both rules, simulated

For each report: the valid gating rounds' CPU per request in the order
they were recorded, the plan's looks (stats.Plan.Looks), and at each look
the exact upper bound of the Hodges-Lehmann interval (the (k+1)-th largest
Walsh average, k the signed-rank test's critical count) at the engine's
level and at the futility level. Only the CPU row is replayed: for gates
that other rows held (the engine's replay test,
engine/internal/verdict/replay_test.go, prints which), the first column is
checked against the recorded rounds, and a mismatch is flagged.
"""
import functools
import json
import math
import sys

BETA = 0.10  # the miss rate at the threshold, as "could detect" uses 90% power
MAX_LOOKS, FIRST_SHARE = 4, 0.5


def looks(lo, hi):
    steps = min(MAX_LOOKS - 1, hi - lo)
    return [lo] + [lo + (i * (hi - lo) + steps // 2) // steps for i in range(1, steps + 1)]


def share(k, n_looks):
    if n_looks == 1:
        return 1.0
    return FIRST_SHARE if k == 0 else (1 - FIRST_SHARE) / (n_looks - 1)


@functools.lru_cache(maxsize=None)
def null_cdf(n):
    """P(W+ <= w) for the exact signed-rank statistic of n untied differences."""
    counts = [1]
    for rank in range(1, n + 1):
        nxt = counts + [0] * rank
        for w, c in enumerate(counts):
            nxt[w + rank] += c
        counts = nxt
    total, acc, cdf = 2 ** n, 0, []
    for c in counts:
        acc += c
        cdf.append(acc / total)
    return cdf


def upper_bound(d, gamma):
    """The exact one-sided upper bound at level gamma; None if too few rounds."""
    n = len(d)
    cdf = null_cdf(n)
    k = -1
    while k + 1 < len(cdf) and cdf[k + 1] <= gamma:
        k += 1
    if k < 0:
        return None
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    return walsh[len(walsh) - 1 - k]


def gating_pairs(report):
    rounds = {}
    for run in report["runs"]:
        if run.get("profile_round"):
            continue
        rounds.setdefault(run["pair"], {})[run["side"]] = run
    pairs = []
    for pair in sorted(rounds):
        sides = rounds[pair]
        if all(s in sides and sides[s]["valid"] for s in ("base", "head")):
            pairs.append((sides["base"]["figures"]["cpu_us_per_req"], sides["head"]["figures"]["cpu_us_per_req"]))
    return pairs


def stop(d, plan, threshold, gamma_at):
    """The first look at which the CPU row is unchanged, and its bound."""
    ls = plan
    for k, n in enumerate(ls):
        if n > len(d):
            break
        bound = upper_bound(d[:n], gamma_at(k, len(ls)))
        if bound is not None and math.expm1(bound) <= threshold:
            return n, math.expm1(bound)
    return None, None


def lower_bound(d, gamma):
    """The exact one-sided lower bound at level gamma; None if too few rounds."""
    b = upper_bound([-x for x in d], gamma)
    return None if b is None else -b


def simulate(sd, changes, gates, lo=14, hi=28, alpha=0.01, family=4, threshold=0.015, seed=1):
    """The CPU row alone, normal noise of sd per round (log-ratio), Holm's
    family taken as fixed (Bonferroni over family, the level CPU gets when
    it alone changed): the share of gates that fail, pass and stay
    inconclusive, and their mean rounds, under each rule."""
    import random
    rng = random.Random(seed)
    plan = looks(lo, hi)
    d0 = math.log1p(threshold / 2)
    print("| SD | true change | rule | fail | pass | inconclusive | stopped at the first look | mean rounds | p95 rounds |")
    print("|--:|--:|---|--:|--:|--:|--:|--:|--:|")
    for delta in changes:
        shift = math.log1p(delta)
        tallies = {"engine": [0, 0, 0, []], "futility": [0, 0, 0, []]}
        for _ in range(gates):
            d = [shift + rng.gauss(0, sd) for _ in range(hi)]
            for rule, t in tallies.items():
                outcome, rounds = 2, plan[-1]
                for k, n in enumerate(plan):
                    a = alpha * share(k, len(plan)) / family
                    x = d[:n]
                    low = lower_bound([v - d0 for v in x], a)
                    walsh = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
                    hl = (walsh[(len(walsh) - 1) // 2] + walsh[len(walsh) // 2]) / 2
                    if low is not None and low > 0 and math.expm1(hl) > threshold:
                        outcome, rounds = 0, n
                        break
                    gamma = a if rule == "engine" else BETA * share(k, len(plan))
                    up = upper_bound(x, gamma)
                    if up is not None and math.expm1(up) <= threshold:
                        outcome, rounds = 1, n
                        break
                t[outcome] += 1
                t[3].append(rounds)
        for rule, t in tallies.items():
            r = sorted(t[3])
            print("| %.1f%% | %+.2f%% | %s | %.3f | %.3f | %.3f | %.3f | %.1f | %d |" % (
                100 * sd, 100 * delta, rule, t[0] / gates, t[1] / gates, t[2] / gates,
                r.count(plan[0]) / gates, sum(r) / len(r), r[int(0.95 * (len(r) - 1))]))


def main(paths):
    print("| report | recorded rounds | verdict | engine's rule: CPU unchanged at | futility (%.0f%% miss): CPU unchanged at | bound there |" % (100 * BETA))
    print("|---|--:|---|--:|--:|--:|")
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        cpu = next(m for m in report["metrics"] if m["name"] == "cpu")
        alpha = report["config"]["gate"]["alpha"]
        lo = report["config"]["pairs"]
        hi = report["config"].get("max_pairs") or lo
        plan = looks(lo, max(hi, lo))
        family = max(1, cpu.get("family", 1))
        pairs = gating_pairs(report)
        d = [math.log(h / b) for b, h in pairs]
        engine_n, _ = stop(d, plan, cpu["threshold"], lambda k, m: alpha * share(k, m) / family)
        futile_n, bound = stop(d, plan, cpu["threshold"], lambda k, m: BETA * share(k, m))
        flag = "" if engine_n is None or engine_n == cpu["pairs"] else " (other rows held it)"
        print("| %s | %d | %s | %s%s | %s | %s |" % (
            path, cpu["pairs"], report["verdict"], engine_n or "not by %d" % len(d), flag,
            futile_n or "not by %d" % len(d), "%+.2f%%" % (100 * bound) if bound is not None else ""))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--simulate"]:
        # --simulate SD GATES: the operating characteristic of both rules.
        sd, gates = float(sys.argv[2]), int(sys.argv[3])
        simulate(sd, [0, 0.0075, 0.015, 0.01875, 0.0225, 0.03, 0.05], gates)
        sys.exit(0)
    if len(sys.argv) < 2:
        sys.exit("usage: futility-replay.py REPORT.json ...")
    main(sys.argv[1:])
