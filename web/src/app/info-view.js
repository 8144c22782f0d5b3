// info-view.js -- renders a model's info JSON into the page. Every string that
// comes from the model is set with textContent (never innerHTML).
import { scaleLinear } from 'd3';

const nf = new Intl.NumberFormat('en-US');

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

export function formatBytes(n) {
  if (n < 1024) return `${nf.format(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n, i = -1;
  do { v /= 1024; i++; } while (v >= 1024 && i < units.length - 1);
  return `${nf.format(n)} B (${v.toFixed(1)} ${units[i]})`;
}

export function formatShape(shape) {
  if (shape === null || shape === undefined) return 'unknown';
  return `[${shape.map((d) => (d === null ? '?' : String(d))).join(', ')}]`;
}

function fillValues(table, values) {
  const body = table.tBodies[0];
  body.replaceChildren(...values.map((v) => {
    const tr = el('tr');
    tr.append(el('td', v.name, 'name'), el('td', v.dtype ?? '—'), el('td', formatShape(v.shape), 'mono'));
    return tr;
  }));
  if (values.length === 0) body.append(el('tr')).append(el('td', 'none', 'muted'));
}

export function renderInfo(root, name, info) {
  root.querySelector('#model-name').textContent = name;

  const opsets = Object.entries(info.opsets ?? {})
    .map(([d, v]) => `${d === '' ? 'ai.onnx' : d} ${v}`).join(', ');
  const rows = [
    ['nodes', 'Nodes (main graph)', nf.format(info.nodes)],
    ['nodes-total', 'Nodes (with subgraphs)', nf.format(info.nodes_total)],
    ['functions', 'Model-local functions', info.functions === undefined ? undefined : nf.format(info.functions)],
    ['initializers', 'Initializers', nf.format(info.initializers)],
    ['initializer-bytes', 'Initializer bytes', formatBytes(info.initializer_bytes)],
    ['ir-version', 'IR version', info.ir_version],
    ['opsets', 'Opsets', opsets || 'none'],
    ['producer', 'Producer', [info.producer, info.producer_version].filter(Boolean).join(' ') || '—'],
    ['graph-name', 'Graph name', info.graph_name],
  ];
  const dl = root.querySelector('#summary');
  dl.replaceChildren();
  for (const [id, label, value] of rows) {
    if (value === undefined) continue; // a field this build's info does not have
    const dd = el('dd', value);
    dd.id = `stat-${id}`;
    dl.append(el('dt', label), dd);
  }

  fillValues(root.querySelector('#inputs'), info.inputs ?? []);
  fillValues(root.querySelector('#outputs'), info.outputs ?? []);

  const ops = Object.entries(info.op_types ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const x = scaleLinear().domain([0, ops.length ? ops[0][1] : 1]).range([0, 100]);
  const body = root.querySelector('#ops').tBodies[0];
  body.replaceChildren(...ops.map(([op, count]) => {
    const bar = el('div', undefined, 'bar');
    bar.style.width = `${x(count)}%`; // CSSOM, allowed by style-src 'self'
    const cell = el('td', undefined, 'bar-cell');
    cell.append(bar);
    const tr = el('tr');
    tr.append(el('td', op, 'name'), el('td', nf.format(count), 'num'), cell);
    return tr;
  }));
}
