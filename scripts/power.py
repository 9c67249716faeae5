#!/usr/bin/env python3
"""Summary of a power benchmark (scripts/power.sh, issue 10).

Reads DIR/<plant>-<i>/report.json and the gate.json beside it (plant, exit
code, wall seconds including both builds) and prints Markdown: per plant the
verdict counts, how often the planted metric was caught, its median estimate
against the planted size, the per-round SD of the CPU log-ratios, the median
"could detect", and the gate's wall time; then what two simpler gates would
have said on the same recorded runs (a single-run ratio at 10%, as
github-action-benchmark does with one run each; benchstat's Mann-Whitney U
test on the per-run values), "could detect" against the realised detection
rate, and the issue's targets.

    python3 scripts/power.py results/power
    python3 scripts/power.py --size cpu-5=0.047 results/power   # calibrated size
    python3 scripts/power.py --line results/power/cpu-5-3       # one gate's line

Standard library only. A gate without a report (exit 2 or 3: configuration
or infrastructure error) counts as "error"; missing fields are shown as "-".
"""
import json
import math
import os
import re
import statistics
import sys
from collections import namedtuple

# Plant is what a patch plants: the metric (a name in report.json
# metrics[].name) and its nominal size in that metric's scale (a fraction
# for relative metrics, an amount per 1,000 requests for the retained
# ones), as the patch's description gives it: nominal, until a long duet
# calibrates it (pass that with --size). The leak's 250 is an upper bound:
# an order turned away for lack of stock leaves no goroutine.
Plant = namedtuple("Plant", "metric size note")

PLANTS = {
    "aa": Plant(None, None, "no change"),
    "cpu-half": Plant("cpu", 0.009, "2 SHA-256 of 1 KiB per request, ~1.5 µs, meant as half the threshold (δ0); measured +0.2 to +1.3%, mean +0.9%, over 24 gates"),
    "cpu-threshold": Plant("cpu", 0.015, "5 SHA-256 of 1 KiB per request, ~3.5 µs, about the threshold"),
    "cpu-near": Plant("cpu", 0.018, "6 SHA-256 of 1 KiB per request, ~4 µs, near could detect"),
    "cpu-2": Plant("cpu", 0.02, "11 SHA-256 of 1 KiB per request, ~8 µs"),
    "cpu-5": Plant("cpu", 0.05, "27 SHA-256 of 1 KiB per request, ~19 µs"),
    "cpu-10": Plant("cpu", 0.10, "54 SHA-256 of 1 KiB per request, ~37 µs"),
    "alloc-1": Plant("allocs", 0.01, "one extra allocation per request"),
    "goroutine-leak": Plant("goroutines", 250, "a goroutine kept per accepted order, 1 request in 4"),
    "heap-retain": Plant("heap", 100000, "a 64-byte record and a slice slot kept per request, ~100 B"),
    # Layout-only plants: A/A' gates whose binaries differ in layout and in
    # nothing the load reaches; a fair gate passes them.
    "layout-dependency": Plant(None, None, "layout only: text/template used once at start-up"),
    "layout-cold-route": Plant(None, None, "layout only: a CSV export behind a route the load never calls"),
    "layout-reorder": Plant(None, None, "layout only: declarations of the search package reordered"),
}
ORDER = list(PLANTS)

# ABSOLUTE are the planted metrics compared as amounts, not ratios, as
# report.json describes them; for sizes shown before any report has them.
ABSOLUTE = {
    "goroutines": {"scale": "absolute", "unit": "goroutines/1k req"},
    "heap": {"scale": "absolute", "unit": "B/1k req"},
}

VERDICTS = ["pass", "regression", "improvement", "inconclusive", "invalid", "error"]

# The two alternative gates.
RATIO_LIMIT = 1.10  # single-run ratio gate: alarm above +10%
MW_ALPHA = 0.05     # benchstat's default significance level
EXACT_MAX_N = 30    # exact Mann-Whitney distribution up to this many runs

# The targets.
TARGET_CPU_DETECTABLE = 0.02
TARGET_P95_SECONDS = 240


# ---------------------------------------------------------------- reading

def load_json(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def get(obj, *keys):
    """get walks nested dicts, returning None at the first missing key."""
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            return None
        obj = obj[k]
    return obj


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return None
    return lines[-1][:160] if lines else None


def plant_of(name, sidecar):
    if sidecar and sidecar.get("plant"):
        return sidecar["plant"]
    m = re.match(r"^(.*)-(\d+)$", name)
    return m.group(1) if m else name


def read_gate(path):
    """read_gate is one gate's record: its sidecar, report and what the
    analysis needs from them."""
    name = os.path.basename(os.path.normpath(path))
    sidecar = load_json(os.path.join(path, "gate.json")) or {}
    report = load_json(os.path.join(path, "report.json"))
    code = sidecar.get("exit")
    g = {
        "name": name,
        "plant": plant_of(name, sidecar),
        "exit": code,
        "seconds": sidecar.get("seconds"),
        "config": sidecar.get("config_sha256"),
        "perfgate": sidecar.get("perfgate"),
        "report": report,
        "log": last_line(os.path.join(path, "gate.log")),
        "metrics": {},
    }
    if report is None or code in (2, 3):
        g["verdict"] = "error"
    else:
        g["verdict"] = report.get("verdict") or "error"
    if report is not None:
        for m in report.get("metrics") or []:
            if isinstance(m, dict) and "name" in m:
                g["metrics"][m["name"]] = m
    g["pairs"] = list(valid_pairs(report))
    g["round_sd"] = round_sd(g["pairs"], "cpu_us_per_req")
    g["ratio"] = {k: single_run_alarm(g["pairs"], k) for k in ("cpu_us_per_req", "allocs_per_req")}
    g["mw"] = {k: mann_whitney_alarm(report, k) for k in ("cpu_us_per_req", "allocs_per_req")}
    return g


def read_dir(root):
    gates = []
    def natural(name):  # aa-2 before aa-10
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
    for entry in sorted(os.listdir(root), key=natural):
        path = os.path.join(root, entry)
        if os.path.isdir(path) and (os.path.exists(os.path.join(path, "gate.json")) or os.path.exists(os.path.join(path, "report.json"))):
            gates.append(read_gate(path))
    return gates


# ---------------------------------------------------------------- per-round figures

def figure(run, key):
    v = get(run, "figures", key)
    return v if isinstance(v, (int, float)) and v > 0 else None


def valid_pairs(report):
    """valid_pairs yields (pair, base run, head run) for every gating round
    with both sides valid, in pair order: a duet's profile rounds never
    enter the statistics (and profiling makes them noisier)."""
    if not report:
        return
    by = {}
    for run in report.get("runs") or []:
        if isinstance(run, dict) and run.get("valid") and not run.get("profile_round") and "pair" in run and "side" in run:
            by.setdefault(run["pair"], {})[run["side"]] = run
    for pair in sorted(by):
        sides = by[pair]
        if "base" in sides and "head" in sides:
            yield pair, sides["base"], sides["head"]


def log_ratios(pairs, key):
    out = []
    for _, b, h in pairs:
        vb, vh = figure(b, key), figure(h, key)
        if vb and vh:
            out.append(math.log(vh / vb))
    return out


def round_sd(pairs, key):
    xs = log_ratios(pairs, key)
    return statistics.stdev(xs) if len(xs) >= 2 else None


def significant_increase(g, name):
    """significant_increase: the metric rose with p at or below the gate's
    alpha (Holm-adjusted for gating metrics), whatever its threshold: the
    event "could detect" predicts."""
    m = g["metrics"].get(name) or {}
    p, delta = m.get("p"), m.get("delta")
    alpha = get(g["report"], "config", "gate", "alpha")
    if not all(isinstance(v, (int, float)) for v in (p, delta, alpha)):
        return False
    return p <= alpha and delta > 0


def single_run_alarm(pairs, key):
    """single_run_alarm is github-action-benchmark's gate with one run per
    side: the first valid round only, alarm when head/base > 1.10. None
    when there is no such round."""
    for _, b, h in pairs:
        vb, vh = figure(b, key), figure(h, key)
        if vb and vh:
            return vh / vb > RATIO_LIMIT
        return None
    return None


# ---------------------------------------------------------------- Mann-Whitney

# The values are the runs' own figures, as perfgate's benchstat table
# (report.json benchstat[], from benchmath) uses them; the bench/<side>.txt
# files round them (CPU to whole ns, allocations to 0.01), which can add ties.
def side_values(report, side, key):
    out = []
    for run in (report or {}).get("runs") or []:
        if isinstance(run, dict) and run.get("side") == side and run.get("valid"):
            v = figure(run, key)
            if v:
                out.append(v)
    return out


def midranks(values):
    """midranks are the ranks of values, ties sharing their average."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mann_whitney(x, y):
    """mann_whitney is the two-sided p-value of the Mann-Whitney U test of
    x against y: exact (ties included, by counting the subsets of the
    midranks) up to EXACT_MAX_N values, else the normal approximation with
    the tie and continuity corrections."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return None
    ranks = midranks(list(x) + list(y))
    n = n1 + n2
    if n <= EXACT_MAX_N:
        # Doubled midranks are integers; count the ways n1 of them sum to s.
        doubled = [int(round(2 * r)) for r in ranks]
        total = sum(doubled)
        ways = [[0] * (total + 1) for _ in range(n1 + 1)]
        ways[0][0] = 1
        for r in doubled:
            for k in range(n1, 0, -1):
                row, prev = ways[k], ways[k - 1]
                for s in range(total, r - 1, -1):
                    if prev[s - r]:
                        row[s] += prev[s - r]
        dist = ways[n1]
        count = sum(dist)
        observed = sum(doubled[:n1])
        mean2 = n1 * (n + 1)  # doubled mean rank sum
        dev = abs(observed - mean2)
        # Two-sided: the rank sums at least as far from the mean.
        extreme = sum(c for s, c in enumerate(dist) if c and abs(s - mean2) >= dev - 1e-9)
        return min(1.0, extreme / count)
    r1 = sum(ranks[:n1])
    u = r1 - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    ties = {}
    for v in list(x) + list(y):
        ties[v] = ties.get(v, 0) + 1
    tie_term = sum(t ** 3 - t for t in ties.values()) / (n * (n - 1))
    var = n1 * n2 / 12 * ((n + 1) - tie_term)
    if var <= 0:
        return 1.0
    z = max(0.0, abs(u - mu) - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def mann_whitney_alarm(report, key):
    """mann_whitney_alarm is benchstat's call on all valid runs per side,
    unpaired: significant at p < 0.05 with the head median higher. None
    without runs on both sides."""
    base, head = side_values(report, "base", key), side_values(report, "head", key)
    p = mann_whitney(base, head)
    if p is None:
        return None
    return p < MW_ALPHA and statistics.median(head) > statistics.median(base)


# ---------------------------------------------------------------- formatting

def quantile(xs, q):
    """quantile by the nearest-rank method (p95 of 20 is the 19th)."""
    xs = sorted(xs)
    if not xs:
        return None
    return xs[max(0, math.ceil(q * len(xs)) - 1)]


def fmt_change(metric, v):
    if v is None:
        return "-"
    scale = metric.get("scale") if metric else "relative"
    if scale == "relative":
        return "%+.1f%%" % (100 * v)
    unit = (metric or {}).get("unit", "")
    return (("%+.0f %s" if abs(v) >= 100 else "%+.3g %s") % (v, unit)).strip()


def fmt_size(plant, sizes, metric=None):
    """fmt_size is the planted size in the planted metric's scale, or
    "not calibrated" when neither the table nor --size gives one."""
    size = sizes.get(plant)
    if size is None:
        return "not calibrated"
    if not metric:
        metric = ABSOLUTE.get(PLANTS[plant].metric if plant in PLANTS else None, {"scale": "relative"})
    return fmt_change(metric, size)


def fmt_seconds(v):
    return "-" if v is None else "%.0f s" % v


def fmt_pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def rate(k, n):
    return "-" if n == 0 else "%d/%d" % (k, n)


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def line(g):
    """line is one gate in a line, as power.sh prints it while running."""
    def show(name):
        m = g["metrics"].get(name)
        if not m:
            return "-"
        ci = m.get("ci") or [None, None]
        return "%s %s [%s, %s]" % (m.get("outcome", "?"), fmt_change(m, m.get("delta")),
                                   fmt_change(m, ci[0]), fmt_change(m, ci[1]))
    verdict = g["verdict"]
    if verdict == "error":
        verdict = {2: "config-error", 3: "infra-error"}.get(g["exit"], "no-report")
    else:
        # Which gating metrics made the verdict: "inconclusive(goroutines)".
        why = [n for n, m in g["metrics"].items() if m.get("gates") and m.get("outcome") == verdict]
        if why:
            verdict += "(%s)" % ",".join(why)
    planted = PLANTS.get(g["plant"], Plant(None, None, "")).metric
    extra = ""
    if planted and planted not in ("cpu", "allocs"):
        extra = "  %s: %s" % (planted, show(planted))
    secs = g["seconds"]
    if g["verdict"] == "error" and g["log"]:
        extra += "  (%s)" % g["log"]
    return "%-18s exit %-2s %-26s cpu: %-40s allocs: %-40s%s  %s" % (
        g["name"], "-" if g["exit"] is None else g["exit"], verdict, show("cpu"), show("allocs"), extra,
        "-" if secs is None else "%.0fs" % secs)


# ---------------------------------------------------------------- summary

def summarise(gates, sizes, out):
    by_plant = {}
    for g in gates:
        by_plant.setdefault(g["plant"], []).append(g)
    plants = [p for p in ORDER if p in by_plant] + sorted(p for p in by_plant if p not in PLANTS)

    w = out.write
    w("# Power benchmark: %d gates\n\n" % len(gates))
    configs = {g["config"] for g in gates if g["config"]}
    binaries = {g["perfgate"] for g in gates if g["perfgate"]}
    if len(configs) > 1:
        w("**Warning:** these gates used %d different configs; the figures mix them.\n\n" % len(configs))
    if len(binaries) > 1:
        w("**Warning:** these gates ran %d different perfgate builds; the figures mix them.\n\n" % len(binaries))

    summary = {}
    for plant in plants:
        gs = by_plant[plant]
        spec = PLANTS.get(plant, Plant(None, None, "unknown plant"))
        measured = [g for g in gs if g["verdict"] != "error"]
        counts = {v: sum(1 for g in gs if g["verdict"] == v) for v in VERDICTS}
        others = sum(1 for g in gs if g["verdict"] not in VERDICTS)
        metric = spec.metric
        sample = next((g["metrics"][metric] for g in gs if metric in g["metrics"]), None) if metric else None
        caught = [g for g in measured if metric and get(g["metrics"], metric, "outcome") == "regression"]
        significant = [g for g in measured if metric and significant_increase(g, metric)]
        with_metric = [g for g in measured if metric and metric in g["metrics"]]
        estimates = [get(g["metrics"], metric, "delta") for g in with_metric] if metric else []
        estimates = [e for e in estimates if isinstance(e, (int, float))]
        detectable = [get(g["metrics"], "cpu", "detectable") for g in measured]
        detectable = [d for d in detectable if isinstance(d, (int, float))]
        seconds = [g["seconds"] for g in measured if isinstance(g["seconds"], (int, float))]
        s = summary[plant] = {
            "gates": len(gs), "measured": len(measured), "failed": counts["regression"],
            "caught": len(caught), "significant": len(significant), "with_metric": len(with_metric),
            "detectable": median_or_none(detectable), "seconds": seconds,
        }

        title = "%s: %s" % (plant, spec.note)
        if metric:
            title += ", planted %s %s" % (metric, fmt_size(plant, sizes, sample))
        w("## %s\n\n| | |\n|---|---|\n" % title)
        w("| gates | %d (%d with a measurement) |\n" % (len(gs), len(measured)))
        w("| verdicts | %s%s |\n" % (", ".join("%s %d" % (v, counts[v]) for v in VERDICTS), ", other %d" % others if others else ""))
        if metric:
            against = "against planted " + fmt_size(plant, sizes, sample) if sizes.get(plant) is not None else \
                "(planted size not calibrated: --size %s=N)" % plant
            if sample is None:
                w("| %s caught | - (%s) |\n" % (metric, "no report has this metric" if measured else "no gate measured"))
            else:
                w("| %s caught (outcome regression) | %s |\n" % (metric, rate(len(caught), len(with_metric))))
                w("| %s significant increase (p <= alpha, threshold aside) | %s |\n" % (metric, rate(len(significant), len(with_metric))))
                if estimates:
                        w("| %s estimate, median [min, max] | %s [%s, %s] %s |\n" % (
                        metric, fmt_change(sample, statistics.median(estimates)), fmt_change(sample, min(estimates)),
                        fmt_change(sample, max(estimates)), against))
        else:
            for name in ("cpu", "allocs"):
                es = [get(g["metrics"], name, "delta") for g in measured]
                es = [e for e in es if isinstance(e, (int, float))]
                if es:
                    m = next(g["metrics"][name] for g in measured if name in g["metrics"])
                    w("| %s estimate, median [min, max] | %s [%s, %s] |\n" % (
                        name, fmt_change(m, statistics.median(es)), fmt_change(m, min(es)), fmt_change(m, max(es))))
                    if len(es) > 1:
                        # What a bias that holds for a whole gate shows as:
                        # the spread and mean of the per-gate estimates.
                        w("| %s estimate across gates, mean / SD | %+.2f%% / %.2f%% |\n" % (
                            name, 100 * statistics.mean(es), 100 * statistics.stdev(es)))
        sds = [g["round_sd"] for g in measured if g["round_sd"] is not None]
        w("| per-round SD of cpu log-ratios, median [min, max] | %s |\n" % (
            "%s [%s, %s]" % (fmt_pct(statistics.median(sds)), fmt_pct(min(sds)), fmt_pct(max(sds))) if sds else "-"))
        w("| cpu could detect, median | %s (%d gates report it) |\n" % (fmt_pct(s["detectable"]), len(detectable)))
        w("| gate wall time p50 / p95, both builds included | %s / %s |\n\n" % (
            fmt_seconds(quantile(seconds, 0.5)), fmt_seconds(quantile(seconds, 0.95))))

        errors = [g for g in gs if g["verdict"] == "error"]
        if errors:
            w("Gates without a measurement: %s.\n\n" % ", ".join(
                "%s (exit %s%s)" % (g["name"], "-" if g["exit"] is None else g["exit"], "" if g["report"] else ", no report") for g in errors))

    # A/A and layout-only gates together: none may fail, and the spread of
    # their CPU estimates is what a bias fixed for a whole gate would show.
    neutral = [g for p in plants if p == "aa" or p.startswith("layout-") for g in by_plant[p] if g["verdict"] != "error"]
    if neutral:
        es = [get(g["metrics"], "cpu", "delta") for g in neutral]
        es = [e for e in es if isinstance(e, (int, float))]
        seconds = [g["seconds"] for g in neutral if isinstance(g["seconds"], (int, float))]
        w("## A/A and layout-only gates together (nothing on the request path changed)\n\n| | |\n|---|---|\n")
        w("| gates | %d |\n" % len(neutral))
        w("| verdicts | %s |\n" % ", ".join("%s %d" % (v, sum(1 for g in neutral if g["verdict"] == v)) for v in VERDICTS))
        if len(es) > 1:
            w("| cpu estimate across gates, mean / SD | %+.2f%% / %.2f%% |\n" % (100 * statistics.mean(es), 100 * statistics.stdev(es)))
            w("| cpu estimate, min / max | %+.2f%% / %+.2f%% |\n" % (100 * min(es), 100 * max(es)))
        w("| gate wall time p50 / p95, both builds included | %s / %s |\n\n" % (
            fmt_seconds(quantile(seconds, 0.5)), fmt_seconds(quantile(seconds, 0.95))))

    # The same recorded runs through two simpler gates.
    w("## Alternative gates on the same runs\n\n")
    w("Gates that would have failed. perfgate: verdict regression. Single run: the first valid round alone, "
      "head/base above %.2f. benchstat: Mann-Whitney U on all valid runs per side, unpaired, p < %.2f with the "
      "head median higher.\n\n" % (RATIO_LIMIT, MW_ALPHA))
    w("| plant | gates | perfgate | single run cpu | single run allocs | single run either | benchstat cpu | benchstat allocs | benchstat either |\n")
    w("|---|---|---|---|---|---|---|---|---|\n")
    for plant in plants:
        measured = [g for g in by_plant[plant] if g["verdict"] != "error"]
        n = len(measured)

        def alarms(kind, keys):
            return sum(1 for g in measured if any(g[kind][k] for k in keys))

        def judged(kind, keys):
            return sum(1 for g in measured if all(g[kind][k] is not None for k in keys))
        cells = []
        for kind in ("ratio", "mw"):
            for keys in (["cpu_us_per_req"], ["allocs_per_req"], ["cpu_us_per_req", "allocs_per_req"]):
                cells.append(rate(alarms(kind, keys), judged(kind, keys) if len(keys) == 1 else n))
        w("| %s | %d | %s | %s |\n" % (plant, n, rate(summary[plant]["failed"], n), " | ".join(cells)))
    w("\n")

    cpu_plants = [p for p in plants if PLANTS.get(p, Plant(None, None, "")).metric == "cpu"]
    if cpu_plants:
        w("## Could detect against the realised detection rate (cpu)\n\n")
        w("\"Could detect\" is the change each gate says its decision catches with 90% power, the threshold included; "
          "if it is honest, plants at or above it are caught in about 90% of gates or more. Caught also needs the estimate "
          "beyond the gate's threshold.\n\n")
        w("| plant | planted | could detect, median | significant | caught |\n|---|---|---|---|---|\n")
        for plant in cpu_plants:
            s = summary[plant]
            w("| %s | %s | %s | %s | %s |\n" % (plant, fmt_size(plant, sizes), fmt_pct(s["detectable"]),
                                               rate(s["significant"], s["with_metric"]), rate(s["caught"], s["with_metric"])))
        w("\n")

    # The targets.
    w("## Targets\n\n| target | result | met |\n|---|---|---|\n")

    def target(label, plant, need_n, ok):
        s = summary.get(plant)
        if not s or s["measured"] == 0:
            w("| %s | not run | - |\n" % label)
            return
        result, met = ok(s)
        if s["measured"] < need_n:
            met = "%s (only %d of %d gates)" % (met, s["measured"], need_n)
        w("| %s | %s | %s |\n" % (label, result, met))
    target("0 of 20 A/A gates fail", "aa", 20,
           lambda s: ("%d of %d failed" % (s["failed"], s["measured"]), "yes" if s["failed"] == 0 else "no"))
    target("+5% caught in >= 18 of 20", "cpu-5", 20,
           lambda s: ("%d of %d" % (s["caught"], s["with_metric"]), "yes" if s["with_metric"] and s["caught"] >= 0.9 * s["with_metric"] else "no"))
    target("+10% caught in 10 of 10", "cpu-10", 10,
           lambda s: ("%d of %d" % (s["caught"], s["with_metric"]), "yes" if s["with_metric"] and s["caught"] == s["with_metric"] else "no"))
    all_detectable = [get(g["metrics"], "cpu", "detectable") for g in gates if g["verdict"] != "error"]
    all_detectable = [d for d in all_detectable if isinstance(d, (int, float))]
    if all_detectable:
        d = statistics.median(all_detectable)
        w("| could detect <= 2%% on cpu | median %s over %d gates | %s |\n" % (fmt_pct(d), len(all_detectable), "yes" if d <= TARGET_CPU_DETECTABLE else "no"))
    else:
        w("| could detect <= 2% on cpu | not reported by these gates | - |\n")
    all_seconds = [g["seconds"] for g in gates if g["verdict"] != "error" and isinstance(g["seconds"], (int, float))]
    if all_seconds:
        p95 = quantile(all_seconds, 0.95)
        w("| p95 gate time <= 4 min including builds | %s over %d gates | %s |\n" % (fmt_seconds(p95), len(all_seconds), "yes" if p95 <= TARGET_P95_SECONDS else "no"))
    else:
        w("| p95 gate time <= 4 min including builds | no times recorded | - |\n")


def parse_sizes(args):
    sizes = {p: spec.size for p, spec in PLANTS.items()}
    rest = []
    while args:
        a = args.pop(0)
        if a == "--size" and args:
            a = "--size=" + args.pop(0)
        if a.startswith("--size="):
            plant, _, value = a[len("--size="):].partition("=")
            try:
                sizes[plant] = float(value)
            except ValueError:
                sys.exit("power.py: --size %s: want PLANT=NUMBER, e.g. cpu-5=0.047 (a fraction for cpu and allocs)" % a[7:])
        else:
            rest.append(a)
    return sizes, rest


def main(argv):
    if argv[:1] == ["--line"] and len(argv) == 2:
        print(line(read_gate(argv[1])))
        return 0
    sizes, rest = parse_sizes(list(argv))
    if len(rest) != 1 or not os.path.isdir(rest[0]):
        sys.stderr.write(__doc__)
        return 2
    gates = read_dir(rest[0])
    if not gates:
        sys.stderr.write("power.py: no <plant>-<i>/report.json or gate.json under %s; run scripts/power.sh first.\n" % rest[0])
        return 1
    summarise(gates, sizes, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
