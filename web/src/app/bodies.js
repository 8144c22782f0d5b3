// bodies.js -- the control-flow bar above the figures: where the charts are
// (a breadcrumb from the main graph down to the body shown, each step a
// button back), for an If the branch shown and a selector for the other one
// (both branches are planned: `subgraphs` has each), and the bodies of the
// graph shown, one button each with their memory. Hidden for a model
// without control flow. Names are set as text.
import { el } from '../charts/base.js';
import { bodyLabel, planAt } from '../data/plan.js';
import { formatBytes } from '../data/format.js';
import { isCount } from '../data/exact.js';

const BODIES_MAX = 24;

const bytesText = (b) => (isCount(b) ? formatBytes(b) : 'not known');

export function createBodyBar(container, ctl) {
  const bar = el('nav', 'mpv-bodies');
  bar.setAttribute('aria-label', 'control-flow bodies');
  bar.hidden = true;
  container.append(bar);

  // Main graph › If 'x' then_branch (branch taken) › ...: every step but the last opens that graph.
  function crumbs(entries) {
    const ol = el('ol', 'mpv-crumbs');
    const steps = [{ label: 'main graph', path: [] }];
    entries.forEach((e, k) => steps.push({ label: bodyLabel(e), path: ctl.state.path.slice(0, k + 1) }));
    steps.forEach((s, k) => {
      const li = el('li');
      if (k === steps.length - 1) {
        li.append(el('span', 'mpv-crumb-here', s.label));
        li.setAttribute('aria-current', 'location');
      } else {
        const b = el('button', 'mpv-link mpv-crumb', s.label);
        b.type = 'button';
        b.addEventListener('click', () => ctl.openBody(s.path));
        li.append(b);
      }
      ol.append(li);
    });
    return ol;
  }

  // The other graph attributes of the node shown (an If's other branch), as a selector.
  function branchSelect(parent, entry) {
    const path = ctl.state.path;
    const here = path.at(-1);
    const sibs = (parent.subgraphs ?? []).map((e, index) => ({ e, index })).filter(({ e }) => e.node === entry.node);
    if (sibs.length < 2) return null;
    const sel = el('select', 'mpv-branch');
    sel.setAttribute('aria-label', `branch of ${entry.node} shown`);
    for (const { e, index } of sibs) {
      const o = el(
        'option',
        '',
        `${e.attribute}${e.counted ? ' (planned: counted in the parent)' : ' (not counted in the parent)'} · ${bytesText(e.transient_bytes)}`,
      );
      o.value = String(index);
      o.selected = index === here.index;
      sel.append(o);
    }
    sel.addEventListener('change', () => {
      const e = parent.subgraphs[Number(sel.value)];
      ctl.openBody([...path.slice(0, -1), { index: Number(sel.value), node: e.node, attribute: e.attribute }]);
    });
    const l = el('label', 'mpv-ctl');
    l.append(el('span', 'mpv-ctl-label', 'branch'), sel);
    return l;
  }

  // The bodies of the graph shown: one button each (its memory at its node), counted ones first.
  function bodyList(plan) {
    const subs = (plan.subgraphs ?? []).map((e, index) => ({ e, index })).filter(({ e }) => e?.plan);
    if (!subs.length) return null;
    subs.sort((a, b) => Number(b.e.counted) - Number(a.e.counted) || a.index - b.index);
    const p = el('p', 'mpv-body-list');
    p.append(el('span', 'muted', `Bodies here (${subs.length}): `));
    for (const { e, index } of subs.slice(0, BODIES_MAX)) {
      const b = el(
        'button',
        `mpv-link mpv-body-link${e.counted ? '' : ' muted'}`,
        `${bodyLabel(e)} · ${bytesText(e.transient_bytes)}`,
      );
      b.type = 'button';
      b.dataset.node = e.node;
      b.dataset.attribute = e.attribute;
      b.addEventListener('click', () =>
        ctl.openBody([...ctl.state.path, { index, node: e.node, attribute: e.attribute }]),
      );
      if (p.childNodes.length > 1) p.append(document.createTextNode('; ')); // between the bodies (each says ' · bytes')
      p.append(b);
    }
    if (subs.length > BODIES_MAX) p.append(el('span', 'muted', `… ${subs.length - BODIES_MAX} more`));
    return p;
  }

  function render() {
    const { plan, body, path } = ctl.state;
    const hasBodies = !!plan && Array.isArray(plan.subgraphs) && plan.subgraphs.length > 0;
    bar.hidden = !hasBodies;
    if (!hasBodies) {
      bar.replaceChildren();
      return;
    }
    const at = planAt(plan, path);
    const row = el('div', 'mpv-bodies-row');
    row.append(crumbs(at?.entries ?? []));
    if (path.length) {
      const parent = planAt(plan, path.slice(0, -1))?.plan;
      const sel = parent && branchSelect(parent, at.entry);
      if (sel) row.append(sel);
    }
    bar.replaceChildren(row);
    const list = bodyList(body);
    if (list) bar.append(list);
  }
  ctl.on('applied', render);
}
