// format.js -- number formatting shared by the app and the charts.
const nf = new Intl.NumberFormat('en-US');

/** "1,536 B" / "1.5 KiB" style; compact=false gives "1,536 B (1.5 KiB)". `n` may be a
 *  BigInt (a count beyond 2^53, exact.js): the exact part stays exact. */
export function formatBytes(n, { compact = true, trim = false } = {}) {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  const x = Number(n);
  if (Math.abs(x) < 1024) return `${nf.format(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = x,
    i = -1;
  do {
    v /= 1024;
    i++;
  } while (Math.abs(v) >= 1024 && i < units.length - 1);
  if (Math.abs(v) >= 1023.5 && i < units.length - 1) {
    v /= 1024;
    i++;
  } // "1024 KiB" is "1.00 MiB"
  const a = Math.abs(v);
  const digits = a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
  const short = `${trim && digits.includes('.') ? digits.replace(/\.?0+$/, '') : digits} ${units[i]}`; // trim "5.00", never "800"
  return compact ? short : `${nf.format(n)} B (${short})`;
}

/** An integer with thousands separators; a BigInt (exact.js) is written exactly. */
export const formatInt = (n) => (n === null || n === undefined || Number.isNaN(n) ? '—' : nf.format(n));

export function formatRatio(r) {
  if (r === null || r === undefined || Number.isNaN(r)) return '—';
  return `${(r * 100).toFixed(1)}%`;
}

/** About `count` round tick values in [0, max] on binary units (B, KiB, MiB, …). */
export function byteTicks(max, count = 5) {
  if (!(max > 0)) return [0];
  let unit = 1;
  while (max / unit >= 1024 * 2 && unit < 1024 ** 5) unit *= 1024;
  const span = max / unit;
  const raw = span / Math.max(1, count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((f) => f * pow).find((s) => s >= raw) ?? 10 * pow;
  if (unit === 1) step = Math.max(1, Math.round(step));
  const out = [];
  for (let v = 0; v <= span + 1e-9; v += step) out.push(Math.round(v * unit));
  return out;
}

/** A shape as text: "[1, 3, 48, 192]"; dims are ints, dim names or expression
 *  strings ("seq*2"), null an unknown dim ("?"); a null shape (rank unknown) is
 *  "unknown", a missing one "—". Always text: never parsed or run. */
export function formatShape(shape) {
  if (shape === undefined) return '—';
  if (shape === null) return 'unknown';
  if (!Array.isArray(shape)) return String(shape);
  return `[${shape.map((d) => (d === null || d === undefined ? '?' : String(d))).join(', ')}]`;
}

/** A node as text: "Conv conv2d_3", "com.microsoft.Attention attn" (op with
 *  its domain unless ai.onnx, then the name; either may be missing). */
export const nodeLabel = (nd) =>
  [nd.domain && nd.domain !== 'ai.onnx' ? `${nd.domain}.${nd.op}` : nd.op, nd.name].filter(Boolean).join(' ');
