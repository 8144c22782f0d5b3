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

/** Bytes as formatBytes gives them and, when that rounds, the exact count:
 *  "44.5 MiB (46,694,400 B)"; "512 B" alone. */
export function formatBytesExact(n) {
  const short = formatBytes(n),
    exact = `${formatInt(n)} B`;
  return short === exact ? short : `${short} (${exact})`;
}

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

// Dim names as the page shows them. The plan's shapes and expressions print a
// name that is not a plain identifier (or is a reserved word, or starts with
// "_0x") escaped: "_0x" + the lowercase hex of its UTF-8 bytes
// (include/memplan/expr.h, NAMES): "p2o.DynamicDimension.0" is
// _0x70326f2e44796e616d696344696d656e73696f6e2e30. For reading, the page
// turns them back into the name: as it is when it holds only letters, digits,
// '_', '.' and ':' and starts with a letter or '_' (no operator of the
// grammar, so it cannot be read as arithmetic; "p2o.DynamicDimension.0",
// "input:0"); in double quotes, JSON-escaped, otherwise ("N-1", "batch size",
// "2x", and "max", "min" and names starting with "_0x", which would read as
// the functions or as an escape).
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.:]*$/;
/** A dim name (raw, as the model spells it) as the page shows it. */
export function displayName(name) {
  const s = String(name);
  return PLAIN_NAME.test(s) && !/^_0x/i.test(s) && s !== 'max' && s !== 'min' ? s : JSON.stringify(s);
}
const utf8 = new TextDecoder('utf-8', { fatal: true });
const ESCAPED = /^_0x((?:[0-9a-fA-F]{2})+)$/;
/** An escaped name token's raw name, or null when `token` is not a valid escape. */
export function unescapeName(token) {
  const hex = ESCAPED.exec(token)?.[1];
  if (!hex) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let k = 0; k < bytes.length; k++) bytes[k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  try {
    const s = utf8.decode(bytes);
    return s && !s.includes('\0') ? s : null;
  } catch {
    return null;
  }
}
/** An amount as the plan prints it ("(_0x4e2d31+1)//2") with every escaped name shown by displayName ('("N-1"+1)//2').
 *  Integers, operators and plain names stay as they are. Text only: never parsed or run. */
export const displayExpr = (text) =>
  String(text).replace(/[0-9]+|[A-Za-z_][A-Za-z0-9_]*/g, (tok) => {
    const raw = tok.startsWith('_0') ? unescapeName(tok) : null;
    return raw === null ? tok : displayName(raw);
  });

/** A shape as text: "[1, 3, 48, 192]"; dims are ints, dim names or expression
 *  strings ("seq*2"), null an unknown dim ("?"); a null shape (rank unknown) is
 *  "unknown", a missing one "—". Always text: never parsed or run. A plan's
 *  dims are expressions with escaped names (displayExpr); `raw: true` for
 *  shapes whose dims are names as the model spells them (`info --json`'s
 *  declared shapes: displayName). */
export function formatShape(shape, { raw = false } = {}) {
  if (shape === undefined) return '—';
  if (shape === null) return 'unknown';
  if (!Array.isArray(shape)) return String(shape);
  const dim = (d) =>
    d === null || d === undefined ? '?' : typeof d === 'string' ? (raw ? displayName(d) : displayExpr(d)) : String(d);
  return `[${shape.map(dim).join(', ')}]`;
}

/** A node as text: "Conv conv2d_3", "com.microsoft.Attention attn" (op with
 *  its domain unless ai.onnx, then the name; either may be missing). */
export const nodeLabel = (nd) =>
  [nd.domain && nd.domain !== 'ai.onnx' ? `${nd.domain}.${nd.op}` : nd.op, nd.name].filter(Boolean).join(' ');
