// export.js -- text exports: CSV of table rows and the Netron attachment.
// Pure functions returning strings/objects; the app turns them into downloads.

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF. */
export function csvField(v) {
  if (v === null || v === undefined) return '';
  const s = Array.isArray(v) ? v.join(' ') : String(v);
  // A leading =,+,-,@ would be a formula in spreadsheets: prefix a quote (names and lists of names only; numbers pass).
  const name = typeof v === 'string' || (Array.isArray(v) && typeof v[0] === 'string');
  const safe = name && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
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
 * A Netron attachment: the sidecar JSON Netron reads next to a model
 * (source/metadata.js in Netron: `metadata.Attachment`), so Netron shows the
 * plan in its sidebar. Netron keeps entries of its two containers,
 * `metadata` and `metrics`, keyed "kind::target" and lists them for the model
 * element of that kind whose name is `target`:
 * {
 *   signature: "netron:attachment",
 *   producer: "onnx-memplan <version>", model: <file name>,   // ours; Netron ignores them
 *   metadata: [{kind, target, name, value}],  // strings: plan status, strategy, a value's owner
 *   metrics:  [{kind, target, name, value}],  // numbers
 * }
 * kind "graph" (target: the main graph's name): memplan.status, .strategy,
 * .align, .positions, .naive_bytes, .peak_bytes, .lower_bound_bytes,
 * .savings_ratio; kind "value" (a tensor name): memplan.size_bytes, .start,
 * .end (positions), .offset_bytes, .slot, and memplan.owner for views; kind
 * "node" (a node name): memplan.live_bytes, .allocated_bytes, .freed_bytes,
 * .arena_top_bytes. Netron finds nodes by name, so nodes without one get no
 * entry (counted in the graph's memplan.unnamed_nodes). Unknown amounts are
 * left out.
 */
export function netronAttachment(
  m,
  { nodes = [], values = [], producer = 'onnx-memplan', model = '', graph = '' } = {},
) {
  const metadata = [],
    metrics = [];
  const add = (list, kind, target, name, value) => {
    if (value !== null && value !== undefined && value !== '')
      list.push({ kind, target, name: `memplan.${name}`, value });
  };
  add(metadata, 'graph', graph, 'status', m.status);
  add(metadata, 'graph', graph, 'strategy', m.strategy);
  for (const [k, v] of [
    ['align', m.align],
    ['positions', m.positions],
    ['naive_bytes', m.exact?.naive ?? m.naive],
    ['peak_bytes', m.exact?.peak ?? m.peak],
    ['lower_bound_bytes', m.exact?.lowerBound ?? m.lowerBound],
    ['savings_ratio', m.savings],
  ])
    add(metrics, 'graph', graph, k, v);
  for (const v of values) {
    add(metrics, 'value', v.name, 'size_bytes', v.size);
    add(metrics, 'value', v.name, 'start', v.start);
    add(metrics, 'value', v.name, 'end', v.end);
    add(metrics, 'value', v.name, 'offset_bytes', v.offset);
    add(metrics, 'value', v.name, 'slot', v.slot);
    if (v.owner !== v.name) add(metadata, 'value', v.name, 'owner', v.owner);
  }
  let unnamed = 0;
  for (const r of nodes) {
    if (!r.name) {
      unnamed++;
      continue;
    }
    add(metrics, 'node', r.name, 'live_bytes', r.live);
    add(metrics, 'node', r.name, 'allocated_bytes', r.allocated);
    add(metrics, 'node', r.name, 'freed_bytes', r.freed);
    add(metrics, 'node', r.name, 'arena_top_bytes', r.extent);
  }
  if (unnamed) add(metrics, 'graph', graph, 'unnamed_nodes', unnamed);
  return { signature: 'netron:attachment', producer, model, metadata, metrics };
}
