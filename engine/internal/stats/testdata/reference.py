"""Reference values for the stats package, from SciPy and brute force.

Regenerate with:  python3 reference.py > reference.json
(needs scipy; recorded with the scipy version printed in the output)

p-values of untied samples come from scipy.stats.wilcoxon (method="exact").
Tied samples, Hodges-Lehmann estimates and intervals come from enumerating
all 2^n sign assignments, independently of the Go code's dynamic programme.
"""
import itertools, json, math
import numpy as np
import scipy
from scipy import stats

def midranks(absd):
    order = sorted(range(len(absd)), key=lambda i: absd[i])
    ranks = [0.0] * len(absd)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and absd[order[j + 1]] == absd[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks

def brute_p(d):
    nz = [x for x in d if x != 0]
    r = midranks([abs(x) for x in nz])
    w = sum(rk for rk, x in zip(r, nz) if x > 0)
    ge = le = 0
    for signs in itertools.product([0, 1], repeat=len(nz)):
        s = sum(rk for rk, b in zip(r, signs) if b)
        ge += s >= w - 1e-9
        le += s <= w + 1e-9
    total = 2 ** len(nz)
    return w, ge / total, le / total

def hl(d, alpha):
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    # Untied null distribution of W+ by enumeration.
    counts = {}
    for signs in itertools.product([0, 1], repeat=n):
        s = sum(i + 1 for i, b in enumerate(signs) if b)
        counts[s] = counts.get(s, 0) + 1
    cum, acc = [], 0
    for w in range(m + 1):
        acc += counts.get(w, 0)
        cum.append(acc / 2 ** n)
    k = 0
    while k + 1 < len(cum) and cum[k + 1] <= alpha:
        k += 1
    return float(np.median(walsh)), walsh[k], walsh[m - 1 - k], 1 - 2 * cum[k]

cases = {
    "ten pairs, clear increase": [0.12, 0.08, 0.15, 0.11, -0.02, 0.09, 0.13, 0.07, 0.10, 0.14],
    "ten pairs, noise": [0.03, -0.05, 0.01, -0.02, 0.04, -0.01, 0.02, -0.04, 0.05, -0.03],
    "six pairs, all positive": [0.21, 0.35, 0.18, 0.29, 0.25, 0.31],
    "five pairs, mixed": [-0.4, 0.1, 0.3, -0.2, 0.5],
    "twelve pairs, decrease": [-0.06, -0.09, -0.02, -0.11, 0.01, -0.07, -0.05, -0.08, -0.03, -0.10, -0.04, -0.12],
    "ties and zeros": [0.1, 0.1, -0.1, 0.2, 0.0, 0.2, 0.3, 0.0, -0.2, 0.3],
    "three pairs": [0.36, 0.37, 0.38],
}
out = {"scipy": scipy.__version__, "cases": []}
for name, d in cases.items():
    w, pg, pl = brute_p(d)
    entry = {"name": name, "d": d, "w_plus": w, "p_greater": pg, "p_less": pl}
    if len(set(abs(x) for x in d)) == len(d) and 0 not in d:
        entry["scipy_p_greater"] = float(stats.wilcoxon(d, alternative="greater", method="exact").pvalue)
        entry["scipy_p_less"] = float(stats.wilcoxon(d, alternative="less", method="exact").pvalue)
    for alpha in (0.01, 0.025):
        c, lo, hi, level = hl(d, alpha)
        entry[f"hl_{alpha}"] = {"center": c, "low": lo, "high": hi, "level": level}
    out["cases"].append(entry)
print(json.dumps(out, indent=1))
