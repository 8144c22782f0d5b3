// export.js -- text exports: CSV of table rows and the Netron attachment.
// Pure functions returning strings/objects; the app turns them into downloads.

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF. */
export function csvField(v) {
  if (v === null || v === undefined) return '';
  const s = Array.isArray(v) ? v.join(' ') : String(v);
  // A leading =,+,-,@ would be a formula in spreadsheets: prefix a quote (names only; numbers pass).
  const safe = typeof v === 'string' && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** CSV text with a header line; columns: [{key, label?}] or key strings. Lines end with \n. */
export function toCSV(rows, columns) {
  const cols = columns.map((c) => (typeof c === 'string' ? { key: c, label: c } : { label: c.key, ...c }));
  const lines = [cols.map((c) => csvField(c.label)).join(',')];
  for (const r of rows) lines.push(cols.map((c) => csvField(r[c.key])).join(','));
  return lines.join('\n') + '\n';
}

/**
 * A Netron attachment: per-value and per-node memory metrics keyed by the
 * names Netron shows, so a viewer can annotate the graph. Shape (version 1):
 * {
 *   signature: "netron:attachment", version: 1, producer: "onnx-memplan <version>",
 *   model: <file name>,
 *   plan: {status, strategy, align, positions, naive_bytes, peak_bytes,
 *          lower_bound_bytes, savings_ratio},
 *   values: [{name, metrics: [{name, value, unit?}]}]   // size, start, end, offset, slot, owner
 *   nodes:  [{position, name?, outputs, metrics: [...]}] // live, allocated, freed at the node
 * }
 * Metric names: "size" (bytes), "start"/"end" (positions), "offset" (bytes),
 * "slot", "owner" (value name), "live" (bytes live at the node), "allocated",
 * "freed" (bytes), "arena_extent" (bytes). Unknown values are omitted.
 */
export function netronAttachment(m, { nodes = [], values = [], producer = 'onnx-memplan', model = '' } = {}) {
  const metric = (name, value, unit) => (unit ? { name, value, unit } : { name, value });
  return {
    signature: 'netron:attachment',
    version: 1,
    producer,
    model,
    plan: {
      status: m.status, strategy: m.strategy, align: m.align, positions: m.positions,
      naive_bytes: m.naive, peak_bytes: m.peak, lower_bound_bytes: m.lowerBound, savings_ratio: m.savings,
    },
    values: values.map((v) => ({
      name: v.name,
      metrics: [
        v.size !== null && metric('size', v.size, 'bytes'),
        metric('start', v.start, 'position'),
        metric('end', v.end, 'position'),
        v.offset !== null && metric('offset', v.offset, 'bytes'),
        v.slot !== null && metric('slot', v.slot),
        v.owner !== v.name && metric('owner', v.owner),
      ].filter(Boolean),
    })),
    nodes: nodes.map((r) => {
      const out = { position: r.position };
      if (r.name) out.name = r.name;
      if (r.op) out.op_type = r.op;
      out.outputs = r.outputs;
      out.metrics = [
        metric('live', r.live, 'bytes'),
        metric('allocated', r.allocated, 'bytes'),
        metric('freed', r.freed, 'bytes'),
        metric('arena_extent', r.extent, 'bytes'),
      ];
      return out;
    }),
  };
}
