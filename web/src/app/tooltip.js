// tooltip.js -- the charts' tooltip: a value (type, size, producing node,
// interval, placement, in-place reuse, views) or a position (node, live
// bytes, arena top, naive, unknown sizes, outputs). describeValue and
// describePosition are pure (the controller's state in, [label, text] lines
// out); the tooltip sets them as text.
import { el } from '../charts/base.js';
import { formatBytes, formatInt, formatShape, nodeLabel } from '../data/format.js';
import { reuseText } from '../data/profile.js';
import { bodiesOf, bodyLabel } from '../data/plan.js';

/** Lines about a control-flow node's memory (its transient buffer): the body counted and how to open it. */
function describeBody(ctl, node, size, position) {
  const bodies = bodiesOf(ctl.state.body, node);
  const counted = bodies.find((b) => b.entry.counted)?.entry;
  const lines = [
    [
      'body memory',
      Number.isNaN(size)
        ? "not known (the body's plan is deferred)"
        : `${formatBytes(size)} (${formatInt(size)} B), its body's arena and state`,
    ],
  ];
  lines.push(['node', `${counted?.op_type ?? bodies[0]?.entry.op_type ?? ''} ${node} (position ${position})`]);
  if (counted) lines.push(['counted', bodyLabel(counted)]);
  lines.push(['open', "click to open the body's own charts and tables"]);
  return lines;
}

/** Lines about a kernel's workspace (a transient of kind 'workspace', plan --workspace): what it is and its node. */
function describeWorkspace(t, size, position) {
  const what = typeof t.what === 'string' && t.what ? t.what : 'scratch memory';
  return [
    [
      'kernel workspace',
      Number.isNaN(size) ? `not known: ${what}` : `${formatBytes(size)} (${formatInt(size)} B): ${what}`,
    ],
    ['node', `${t.op_type ?? ''} ${t.node} (position ${position})`],
    ['runtime', "as ONNX Runtime's CPU kernel allocates it while the node runs (one intra-op thread)"],
  ];
}

/** Lines about value `name` of the current plan, or null when it is not in it. */
export function describeValue(ctl, name) {
  const { m, reuse, inplace } = ctl.state;
  const i = m?.index.get(name);
  if (i === undefined) return null;
  const lines = [];
  const own = m.owner[i];
  const size = m.size[i];
  if (m.workspace?.(i)) return describeWorkspace(m.transients[i - m.nValues], size, m.start[i]);
  if (m.transient(i)) return describeBody(ctl, name, size, m.start[i]);
  if (m.dtype[i] || m.shape[i] !== undefined) lines.push(['type', `${m.dtype[i] || '?'} ${formatShape(m.shape[i])}`]);
  lines.push([
    'size',
    Number.isNaN(size)
      ? `unknown (${m.unknownReason.get(name) ?? m.unknownReason.get(m.names[own]) ?? 'no shape'})`
      : `${formatBytes(m.exactSize(i))} (${formatInt(m.exactSize(i))} B)`,
  ]);
  const nd = ctl.producer(name);
  if (nd) lines.push(['made by', `${nodeLabel(nd)} (position ${nd.index})`]);
  lines.push(['live', `positions ${m.start[i]}–${m.end[i]} (${m.end[i] - m.start[i] + 1})`]);
  const slot = m.slot[own];
  const off = m.offset[own];
  if (slot >= 0 || !Number.isNaN(off)) {
    lines.push([
      'placed',
      [slot >= 0 ? `slot ${slot}` : '', !Number.isNaN(off) ? `offset ${formatInt(m.exactOffset(own))}` : '']
        .filter(Boolean)
        .join(' · '),
    ]);
  }
  const ru = reuse.get(name);
  if (ru)
    lines.push([
      'reuses',
      `${reuseText(ru)} in place${inplace ? (m.owner[i] === m.owner[m.index.get(ru.input) ?? -1] ? ' (applied)' : ' (not applied)') : ''}`,
    ]);
  if (own !== i) lines.push(['view of', m.names[own]]);
  else {
    const nv = ctl.viewCount(i);
    if (nv) lines.push(['views', String(nv)]);
  }
  return lines;
}

/** Lines about position p of the current plan, or null when there is none. */
export function describePosition(ctl, p) {
  const { m, series: s } = ctl.state;
  if (!s || p === null || p >= s.positions) return null;
  const lines = [];
  const nd = m?.nodes[p];
  if (nd) lines.push(['node', nodeLabel(nd) || '—']);
  lines.push(['live', `${formatBytes(s.liveBound[p])} in ${formatInt(s.count[p])} buffers`]);
  if (s.maxExtent > 0) lines.push(['arena top', formatBytes(s.extent[p])]);
  lines.push(['naive', formatBytes(s.naive[p])]);
  if (s.unknown[p]) lines.push(['unknown', `${formatInt(s.unknown[p])} sizes unknown`]);
  const outs = ctl.rows('nodes')[p]?.outputs ?? [];
  if (outs.length)
    lines.push(['produces', outs.slice(0, 4).join(', ') + (outs.length > 4 ? ` +${outs.length - 4}` : '')]);
  return lines;
}

const PAD = 14;

/** The tooltip element, appended to `container`. Returns {show(ev, name, pos)}: the charts' tooltip hook. */
export function createTooltip(container, ctl) {
  const tip = el('div', 'mpv-tooltip');
  tip.hidden = true;
  container.append(tip);
  function show(ev, name, pos) {
    const lines = name !== null ? describeValue(ctl, name) : describePosition(ctl, pos);
    if (!lines) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren(el('div', 'mpv-tip-title', name !== null ? name : `position ${pos}`));
    const dl = el('dl');
    for (const [k, v] of lines) dl.append(el('dt', '', k), el('dd', '', v));
    tip.append(dl);
    tip.hidden = false;
    const w = tip.offsetWidth,
      h = tip.offsetHeight;
    let x = ev.clientX + PAD,
      y = ev.clientY + PAD;
    if (x + w > window.innerWidth - 4) x = ev.clientX - w - PAD;
    if (y + h > window.innerHeight - 4) y = ev.clientY - h - PAD;
    tip.style.left = `${Math.max(4, x)}px`;
    tip.style.top = `${Math.max(4, y)}px`;
  }
  return { show };
}
