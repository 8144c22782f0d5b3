// model-info.js -- the model summary (the `info` JSON): figures, inputs,
// outputs and the operator histogram. Every model string is set as text.
import { scaleLinear } from 'd3';
import { el } from '../charts/base.js';
import { formatBytes, formatInt, formatShape } from '../data/format.js';

export { formatShape };

/** Rows listed per inputs/outputs table: a model with 100k graph outputs
 *  (a wide Split) stays a summary; the value table lists every value. */
export const IO_ROWS = 200;

function valuesTable(role, values) {
  const t = el('table', 'mpv-io');
  t.dataset.role = role;
  const head = t.createTHead().insertRow();
  for (const h of ['name', 'dtype', 'shape']) head.append(el('th', '', h));
  const body = t.createTBody();
  for (const v of values.slice(0, IO_ROWS)) {
    const tr = body.insertRow();
    tr.append(
      el('td', 'name', v.name),
      el('td', '', v.dtype ?? '—'),
      el('td', 'mono', formatShape(v.shape, { raw: true })),
    );
  }
  if (values.length > IO_ROWS) {
    const more = el('td', 'muted', `… and ${formatInt(values.length - IO_ROWS)} more (all are in the value table)`);
    more.colSpan = 3;
    body.insertRow().append(more);
  }
  if (!values.length) body.insertRow().append(el('td', 'muted', 'none'));
  return t;
}

/** Fill `root` (emptied) with the info document. */
export function renderModelInfo(root, info) {
  root.replaceChildren();
  const opsets = Object.entries(info.opsets ?? {})
    .map(([d, v]) => `${d === '' ? 'ai.onnx' : d} ${v}`)
    .join(', ');
  const rows = [
    ['nodes', 'Nodes (main graph)', formatInt(info.nodes)],
    ['nodes-total', 'Nodes (with subgraphs)', formatInt(info.nodes_total)],
    ['functions', 'Model-local functions', info.functions === undefined ? undefined : formatInt(info.functions)],
    // The file's main-graph initializers only: bodies' initializers and Constant nodes are in the Weights card.
    ['initializers', 'Initializers (main graph)', formatInt(info.initializers)],
    ['initializer-bytes', 'Initializer bytes (main graph)', formatBytes(info.initializer_bytes, { compact: false })],
    ['ir-version', 'IR version', info.ir_version],
    ['opsets', 'Opsets', opsets || 'none'],
    ['producer', 'Producer', [info.producer, info.producer_version].filter(Boolean).join(' ') || '—'],
    ['graph-name', 'Graph name', info.graph_name],
  ];
  const dl = el('dl', 'mpv-summary');
  for (const [id, label, value] of rows) {
    if (value === undefined) continue;
    const dd = el('dd', '', value);
    dd.dataset.stat = id;
    dl.append(el('dt', '', label), dd);
  }
  const cols = el('div', 'mpv-info-cols');
  const left = el('div');
  left.append(
    el('h4', '', 'Summary'),
    dl,
    el('h4', '', 'Inputs'),
    valuesTable('inputs', info.inputs ?? []),
    el('h4', '', 'Outputs'),
    valuesTable('outputs', info.outputs ?? []),
  );
  const right = el('div');
  const ops = Object.entries(info.op_types ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const x = scaleLinear()
    .domain([0, ops.length ? ops[0][1] : 1])
    .range([0, 100]);
  const t = el('table', 'mpv-ops');
  t.dataset.role = 'ops';
  const hr = t.createTHead().insertRow();
  hr.append(el('th', '', 'op'), el('th', 'num', 'count'), el('th', '', ''));
  const body = t.createTBody();
  for (const [op, count] of ops) {
    const bar = el('div', 'bar');
    bar.style.width = `${x(count)}%`; // CSSOM, allowed by style-src 'self'
    const cell = el('td', 'bar-cell');
    cell.append(bar);
    body.insertRow().append(el('td', 'name', op), el('td', 'num', formatInt(count)), cell);
  }
  right.append(el('h4', '', 'Operators (all graphs)'), t);
  cols.append(left, right);
  root.append(cols);
}
