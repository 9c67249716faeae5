#!/usr/bin/env python3
"""How alike two binaries lay out the functions they share: the share of
shared functions at the same address, at the same offset within a 64-byte
line and a 4 KiB page, and the rank correlation of their order (Kendall's
tau on a sample of pairs). Used to ask whether two builds that differ in a
few functions, linked with one -randlayout seed, place their shared code
alike (docs/benchmarks.md, "Where a round's spread comes from").

    python3 scripts/layout-order.py BINARY_A BINARY_B
"""
import random
import subprocess
import sys


def functions(binary):
    out = subprocess.run(["go", "tool", "nm", "-n", binary], check=True, capture_output=True, text=True).stdout
    addrs = {}
    for line in out.splitlines():
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[1] in ("T", "t"):
            addrs.setdefault(fields[2], int(fields[0], 16))
    return addrs


def main(a_path, b_path):
    a, b = functions(a_path), functions(b_path)
    shared = sorted(set(a) & set(b))
    n = len(shared)
    same = sum(a[f] == b[f] for f in shared)
    line = sum(a[f] % 64 == b[f] % 64 for f in shared)
    page = sum(a[f] % 4096 == b[f] % 4096 for f in shared)
    rng = random.Random(1)
    pairs = [(rng.choice(shared), rng.choice(shared)) for _ in range(200000)]
    pairs = [(f, g) for f, g in pairs if f != g]
    concordant = sum((a[f] < a[g]) == (b[f] < b[g]) for f, g in pairs)
    tau = 2 * concordant / len(pairs) - 1
    print("functions: %d in A, %d in B, %d shared" % (len(a), len(b), n))
    print("same address: %.1f%%; same offset in a 64-byte line: %.1f%%; in a 4 KiB page: %.1f%%" % (100 * same / n, 100 * line / n, 100 * page / n))
    print("order's rank correlation (Kendall's tau, sampled pairs): %.3f" % tau)


if __name__ == "__main__":
    main(*sys.argv[1:3])
