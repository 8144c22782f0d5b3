#!/usr/bin/env python3
"""gen_dsa.py -- DSA-like buffer-allocation instances, in the dsa-bench CSV format.

    python3 bench/gen_dsa.py OUTDIR [--count N] [--min 150] [--max 1000] [--seed S]
                             [--kind loose|tight] [--drop F] [--bias B]

Writes OUTDIR/<kind>-<buffers>-<seed>.csv (id,lower,upper,size; lifetimes
half-open), buffer counts spread evenly over [min, max]. Standard library
only; the same arguments give the same files.

--kind loose (default): the shape follows the public instances (../shared/dsa-bench A-E, measured:
154-215 buffers):
  - times on a grid of 1024-unit ticks over [0, 1048576), with about one
    distinct event time per two buffers (A-E: 72-114 distinct times), so
    many buffers start or end together;
  - three classes, as measured: 20% long-lived (30-100% of the span) and
    small (1-40 KiB), 45% mid (5-30%, 4-200 KiB), 35% short (under 5%,
    16-650 KiB); above 200 buffers lifetimes shrink by 200/n, so the live
    count stays near A-E's (means 18-70);
  - sizes in 1 KiB units;
  - then sizes scaled (still in KiB, at least 1) so the lower bound, the
    largest live total, is about 1 MiB, as in A-E (capacity 1048576):
    heights read as in the public tables.
Such instances turn out easy (the heuristics meet the bound). --kind tight
cuts a full 1 MiB packing into the buffers (see tight()), as A, B and E
are tight: the bound is reachable but hard to reach. With --bias 4 and
--drop 0.05-0.10 the pieces take the shape of MiniMalloc's larger public
instances I and K (median lifetime 2-4% of the span, median size 50-90
KiB, 90-94% of the area filled): shorter-lived and larger than the default
cut's (4.5% and 48 KiB at 430 buffers).
"""
import argparse
import math
import os
import random

SPAN_TICKS = 1024
TICK = 1024
KIB = 1024
TARGET_PEAK = 1 << 20


# Buffer classes measured on A-E: (share, lifetime as a fraction of the
# span, size in KiB), both log-uniform within the ranges but the long
# class's lifetime (uniform). Long-lived buffers are small, short-lived
# ones large: A-E medians 8-10 KiB (long), 35-52 (mid), 76-201 (short).
CLASSES = [
    (0.20, (0.3, 1.0), (1, 40)),
    (0.45, (0.05, 0.3), (4, 200)),
    (0.35, (1.0 / SPAN_TICKS, 0.05), (16, 650)),
]


def log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def buffer(rng, times, reach):
    """(start, end, KiB): times snapped to the instance's event times; reach
    (<= 1) shortens lifetimes of larger instances so that about as many
    buffers are live at once as in A-E."""
    r = rng.random()
    for k, (share, (flo, fhi), (zlo, zhi)) in enumerate(CLASSES):
        if r < share or k == len(CLASSES) - 1:
            break
        r -= share
    frac = rng.uniform(flo, fhi) if k == 0 else log_uniform(rng, flo, fhi)
    length = max(1, round(frac * reach * SPAN_TICKS))
    start = rng.randrange(0, SPAN_TICKS - length + 1)
    lo = max(t for t in times if t <= start)
    later = [t for t in times if t >= start + length]
    hi = min(later) if later else times[-1]
    if hi <= lo:
        hi = min(t for t in times if t > lo)
    return lo, hi, max(1, round(log_uniform(rng, zlo, zhi)))


def peak(bufs):
    """Largest live total (lifetimes half-open: ends before starts)."""
    events = sorted([(s, 1, z) for s, e, z in bufs] + [(e, 0, z) for s, e, z in bufs])
    live = best = 0
    for _, kind, z in events:
        live += z if kind else -z
        best = max(best, live)
    return best


def instance(n, seed):
    rng = random.Random(seed * 1000003 + n)
    k = max(8, n // 2)
    inner = rng.sample(range(1, SPAN_TICKS), k - 2)
    times = sorted([0, SPAN_TICKS] + inner)
    bufs = []
    for _ in range(n):
        bufs.append(buffer(rng, times, min(1.0, 200.0 / n)))
    scale = TARGET_PEAK / KIB / peak(bufs)
    bufs = [(s, e, max(1, round(z * scale))) for s, e, z in bufs]
    return [(s * TICK, e * TICK, z * KIB) for s, e, z in bufs]


def tight(n, seed, drop, bias=1.0):
    """Cut the 1 MiB x span rectangle into n pieces (guillotine cuts, a
    piece chosen by area, cut across its relatively longer side 70% of the
    time, its time extent counted `bias` times over, at a random place): each piece is a buffer, so the lower bound is
    1 MiB and a packing of 1 MiB exists, as in A, B and E. Then a fraction
    `drop` of the buffers is removed (C and D: bound below the capacity)."""
    rng = random.Random(seed * 1000003 + n * 7 + 1)
    height = TARGET_PEAK // KIB
    pieces = [(0, SPAN_TICKS, 0, height)]  # (t0, t1, a0, a1)
    while len(pieces) < n:
        areas = [(t1 - t0) * (a1 - a0) for t0, t1, a0, a1 in pieces]
        i = rng.choices(range(len(pieces)), weights=areas)[0]
        t0, t1, a0, a1 = pieces[i]
        w, h = t1 - t0, a1 - a0
        if w < 2 and h < 2:
            continue
        along_time = (bias * w / SPAN_TICKS >= h / height) == (rng.random() < 0.7)
        if w < 2:
            along_time = False
        if h < 2:
            along_time = True
        if along_time:
            c = rng.randrange(t0 + 1, t1)
            pieces[i:i + 1] = [(t0, c, a0, a1), (c, t1, a0, a1)]
        else:
            c = rng.randrange(a0 + 1, a1)
            pieces[i:i + 1] = [(t0, t1, a0, c), (t0, t1, c, a1)]
    rng.shuffle(pieces)
    keep = pieces[:max(1, round(len(pieces) * (1.0 - drop)))]
    return [(t0 * TICK, t1 * TICK, (a1 - a0) * KIB) for t0, t1, a0, a1 in keep]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--min", type=int, default=150)
    ap.add_argument("--max", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", choices=["loose", "tight"], default="loose",
                    help="loose: A-E's statistics; tight: cut from a full 1 MiB packing")
    ap.add_argument("--drop", type=float, default=0.0,
                    help="tight: fraction of buffers removed (default 0)")
    ap.add_argument("--bias", type=float, default=1.0,
                    help="tight: a piece's time extent counts this many times over when "
                    "choosing the side to cut (above 1: shorter lifetimes, larger sizes)")
    a = ap.parse_args()
    if a.count < 1 or a.min < 1 or a.max < a.min:
        ap.error("need --count >= 1 and 1 <= --min <= --max")
    os.makedirs(a.outdir, exist_ok=True)
    for i in range(a.count):
        n = a.min + (a.max - a.min) * i // max(1, a.count - 1)
        if a.kind == "tight":
            rows = tight(n, a.seed, a.drop, a.bias)
        else:
            rows = instance(n, a.seed)
        path = os.path.join(a.outdir, "%s-%04d-%d.csv" % (a.kind, n, a.seed))
        with open(path, "w") as f:
            f.write("id,lower,upper,size\n")
            for j, (s, e, z) in enumerate(rows):
                f.write("%d,%d,%d,%d\n" % (j, s, e, z))
        print(path)


if __name__ == "__main__":
    main()
