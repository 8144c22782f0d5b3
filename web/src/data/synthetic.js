// synthetic.js -- a deterministic synthetic plan JSON (for performance tests
// and the benchmark): n values over about n/4 positions, mostly short-lived,
// a few long-lived, every tenth a view of the previous owner, placed by a
// simple first-fit over offsets so the arena map looks like a real one.

/** Small deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticPlan(n = 100_000, { seed = 1, align = 64 } = {}) {
  const rand = rng(seed);
  const positions = Math.max(1, Math.ceil(n / 4));
  const values = [];
  // Free list per placement: keep a list of live [offset, end, top] and place first-fit.
  let live = [];
  let peak = 0,
    naive = 0;
  let lastOwner = null;
  for (let i = 0; i < n; i++) {
    const start = Math.min(positions - 1, Math.floor((i / n) * positions));
    if (lastOwner && i % 10 === 9) {
      values.push({
        name: `v${i}/view`,
        size: lastOwner.size,
        start: Math.max(start, lastOwner.start),
        end: lastOwner.end,
        owner: lastOwner.name,
        view: true,
        slot: null,
        offset: lastOwner.offset,
      });
      continue;
    }
    const long = rand() < 0.02;
    const len = long ? Math.floor(rand() * positions * 0.2) : Math.floor(rand() * rand() * 12);
    const end = Math.min(positions - 1, start + len);
    const size = 64 * (1 + Math.floor(rand() * rand() * 4096));
    const asz = Math.ceil(size / align) * align;
    live = live.filter((b) => b.end >= start);
    live.sort((a, b) => a.offset - b.offset);
    let offset = 0;
    for (const b of live) {
      if (offset + asz <= b.offset) break;
      offset = Math.max(offset, b.offset + b.asz);
    }
    live.push({ offset, asz, end });
    peak = Math.max(peak, offset + asz);
    naive += asz;
    const v = { name: `v${i}`, size, start, end, owner: `v${i}`, view: false, slot: null, offset };
    values.push(v);
    lastOwner = v;
  }
  return {
    status: 'planned',
    strategy: 'arena',
    align,
    positions,
    naive_bytes: naive,
    peak_bytes: peak,
    lower_bound_bytes: null,
    savings_ratio: naive ? 1 - peak / naive : 0,
    strategies: null,
    slots: [],
    values,
    unplanned: [],
    unknown: null,
  };
}
