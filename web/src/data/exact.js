// exact.js -- byte counts beyond 2^53, kept exact from the WASM's JSON text
// to the page's figures and exports.
//
// The library counts bytes in 64 bits; JSON.parse turns every number into a
// double, so 72057594037927936 + 4 would read back as 72057594037927940.
// parseExact keeps an integer literal that a double cannot hold exactly as a
// BigInt (every other number stays a Number, so the charts and most code see
// what they always saw); stringifyExact writes such BigInts back as their
// digits. Code that draws takes Number(v) (a pixel does not need 64 bits);
// code that shows or exports a count uses the exact value (formatInt takes
// either).

// A plan with no run of 16 digits has no integer at or above 2^53
// (9007199254740992, 16 digits): parse it as JSON.parse does, without a
// reviver (a reviver makes parsing a large plan several times slower).
const MAYBE_BIG = /\d{16}/;

// JSON.parse source text access (V8 11.4+: Chromium 114+, Node 21+): a
// reviver sees each number's literal text.
const HAS_SOURCE = (() => {
  try {
    return JSON.parse('1', (k, v, ctx) => typeof ctx?.source === 'string') === true;
  } catch {
    return false;
  }
})();

const isIntLiteral = (s) => /^-?\d+$/.test(s);

// A marker no model can forge: 128 random bits, made once.
const NONCE = (() => {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  return `\u0001exact:${[...b].map((x) => x.toString(16).padStart(2, '0')).join('')}:`;
})();
// The marker as JSON text writes it (U+0001 as \u0001).
const NONCE_JSON = JSON.stringify(NONCE).slice(1, -1);

/**
 * JSON.parse, except that an integer literal beyond Number.MAX_SAFE_INTEGER
 * (in size) becomes a BigInt of exactly its digits. `useSource: false`
 * forces the path for engines without source text access (tests).
 */
export function parseExact(text, { useSource = HAS_SOURCE } = {}) {
  if (!MAYBE_BIG.test(text)) return JSON.parse(text);
  if (useSource)
    return JSON.parse(text, (k, v, ctx) =>
      typeof v === 'number' && !Number.isSafeInteger(v) && ctx && isIntLiteral(ctx.source) ? BigInt(ctx.source) : v,
    );
  // Without it: put each long integer literal outside a string into a marker
  // string before parsing, and turn the markers into BigInts as they come
  // back. Strings are matched first, so digits inside a name are left alone.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g, (tok) =>
    tok[0] === '"' ? tok : `"${NONCE_JSON}${tok}"`,
  );
  return JSON.parse(marked, (k, v) => {
    if (typeof v !== 'string' || !v.startsWith(NONCE)) return v;
    const n = BigInt(v.slice(NONCE.length));
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  });
}

/** JSON.stringify(doc, null, space), writing each BigInt as its digits. */
export function stringifyExact(doc, space) {
  let big = false;
  const text = JSON.stringify(
    doc,
    (k, v) => {
      if (typeof v !== 'bigint') return v;
      big = true;
      return `${NONCE}${v}`;
    },
    space,
  );
  if (!big) return text;
  return text.replace(new RegExp(`"${NONCE_JSON.replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g'), '$1');
}

/** A count as a Number, for drawing and arithmetic (BigInt beyond 2^53: the nearest double). */
export const toNumber = (v) => (typeof v === 'bigint' ? Number(v) : v);

/** A JSON count (Number or BigInt): an integer a byte count can be. */
export const isCount = (v) => Number.isInteger(v) || typeof v === 'bigint';
