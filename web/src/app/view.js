// view.js -- the visualizer put together: the controller (controller.js: state,
// worker calls, caches) and the DOM modules that show it -- title bar,
// figures, controls, deferred panel, the five linked charts (active memory among them), memory against a dim, compare, the Details
// table, exports, the model summary and the tooltip. createView(root, client)
// -> the object embed.js wraps (mount / <memplan-view>). Model strings are
// only ever set as text (textContent, canvas fillText, SVG <title> text).
import { el } from '../charts/base.js';
import { createTimeline } from '../charts/timeline.js';
import { createArena } from '../charts/arena.js';
import { createSlots } from '../charts/slots.js';
import { createMemory } from '../charts/memory.js';
import { createBands } from '../charts/bands.js';
import { memorySeries, slotOccupancy } from '../data/series.js';
import { normalizePlan, planAt } from '../data/plan.js';
import { formatBytes } from '../data/format.js';
import { createController, deepFreeze, PUBLIC_EVENTS } from './controller.js';
import { createControls } from './controls.js';
import { createDeferred, createFigures, savingsOf } from './figures.js';
import { createTable } from './table.js';
import { createBodyBar } from './bodies.js';
import { createAtPeak } from './atpeak.js';
import { createSweep } from './sweep.js';
import { createCompare } from './compare.js';
import { createExports } from './exports.js';
import { createOrderFigures } from './order.js';
import { createTooltip } from './tooltip.js';
import { renderModelInfo } from './model-info.js';
import { resolveBody } from './urlstate.js';

const HINT =
  "Ctrl+scroll (or scroll over a chart you clicked) to zoom and drag to pan any chart (positions are shared); with a chart focused, ←/→ pan, +/− zoom, 0 shows all and Esc clears the selection; brush the memory chart to pick a range; click a bar to select a value (a control-flow node's memory opens its body); the strip right of the timeline brushes its rows.";

// The title bar: name, plan status, progress, Cancel; and the error box under it.
function createTitlebar(root, ctl) {
  const bar = el('div', 'mpv-titlebar');
  const nameEl = el('h2', 'mpv-model-name');
  const badge = el('span', 'mpv-badge');
  const progress = el('span', 'mpv-progress');
  progress.setAttribute('role', 'status');
  const cancelBtn = el('button', 'mpv-btn mpv-cancel', 'Cancel');
  cancelBtn.type = 'button';
  cancelBtn.hidden = true;
  cancelBtn.addEventListener('click', () => ctl.cancel());
  bar.append(nameEl, badge, progress, cancelBtn);
  const errorBox = el('p', 'mpv-error');
  errorBox.setAttribute('role', 'alert');
  errorBox.hidden = true;
  root.append(bar, errorBox);
  ctl.on('status', ({ name, progress: text, busy, error }) => {
    if (nameEl.textContent !== name) nameEl.textContent = name;
    if (progress.textContent !== text) progress.textContent = text;
    cancelBtn.hidden = !busy;
    if (error !== null) errorBox.textContent = error;
    errorBox.hidden = error === null;
  });
  // The badge is the shown plan's status, 'loading' while a model loads, and nothing after a cancel.
  const syncBadge = () => {
    const { shown: on, m, phase } = ctl.state;
    const text = phase === 'loading' ? 'loading' : on && m ? m.status : '';
    badge.textContent = text;
    badge.className = `mpv-badge ${text}`;
    badge.hidden = !text;
  };
  ctl.on('state', (phase) => {
    root.dataset.state = phase;
    syncBadge();
  });
  ctl.on('shown', syncBadge);
  ctl.on('applied', syncBadge);
}

// What each chart shows, in figures, for screen readers (the charts' images are hidden from them).
function summarize(charts, { m, series }) {
  const b = (v) => (v === null ? 'not known' : formatBytes(v));
  const peakAt = series.peakPositions.length ? ` at position ${series.peakPositions[0]}` : '';
  const part = m.planned ? '' : ' The plan is deferred: buffers without a size are left out.';
  const r = m.runSpan;
  const folded = r
    ? ` The view opens on positions ${r.start}–${r.end - 1}, the ones a runtime runs: the ${r.before + r.after} outside hold nodes folded at load.`
    : '';
  charts.memory.setSummary(
    `Live bytes over ${m.positions} positions: lower bound ${b(m.lowerBound)}${peakAt}, planned peak ${b(m.peak)}, naive total ${b(m.naive)}.${part}${folded}`,
  );
  charts.timeline.setSummary(`${m.rowCount} buffers over ${m.positions} positions, one row each, by first use.`);
  charts.arena.setSummary(`${m.rowCount} buffers by offset in an arena of ${b(m.peak)}.${part}`);
  charts.bands.setSummary(
    `The buffers live at each of ${m.positions} positions stacked, oldest at the bottom, each as tall as its bytes; colours by ${charts.bands.mode === 'op' ? 'op type' : 'module'} (legend below the chart).${part}`,
  );
  charts.slots.setSummary(`The slot plan: ${m.strategies ? b(m.strategies.slots) : 'not made'}.`);
}

// The memory chart's model and series. With in-place reuse on, its naive line and label are
// those of the baseline the figures use (savingsOf): the same plan without in-place reuse.
function memoryData(s) {
  const sv = savingsOf(s);
  const base = sv.rebased ? planAt(s.baseline, s.path)?.plan : null;
  if (!base) return [s.m, s.series];
  const bs = memorySeries(normalizePlan(base));
  if (bs.positions !== s.series.positions) return [s.m, s.series];
  return [
    { ...s.m, naive: sv.naive },
    { ...s.series, naive: bs.naive },
  ];
}

// The five linked charts, fed by the controller's plan, slot plan and profile.
function createCharts(container, ctl, hooks) {
  const { linked } = ctl;
  const charts = {
    memory: createMemory(container, linked, { height: 200, hooks, key: 'memory' }),
    // Active memory (issue 17): the live buffers stacked, coloured by op type or module.
    bands: createBands(container, linked, { height: 240, hooks, key: 'bands', producer: (n) => ctl.producer(n) }),
    timeline: createTimeline(container, linked, { height: 300, hooks, key: 'timeline' }),
    arena: createArena(container, linked, { height: 260, hooks, key: 'arena' }),
    slots: createSlots(container, linked, { height: 200, hooks, key: 'slots' }),
  };
  const setSlots = ({ m, slotsM, source }) => {
    charts.slots.setEmptyNote(
      !slotsM && source === 'plan' && m.planned
        ? 'a saved arena plan holds no slot plan: open the model to compare'
        : '',
    );
    charts.slots.setData(slotsM, slotsM ? slotOccupancy(slotsM) : null);
    charts.slots.setTitle(m.strategy === 'slots' ? 'Slot occupancy' : 'Slot occupancy (the slot plan, for comparison)');
  };
  const setProfile = ({ profile, profileNote }) => charts.memory.setProfile(profile, profileNote);
  ctl.on('applied', (s) => {
    // A deferred plan's memory and arena charts draw only the buffers whose size is known.
    let n = 0;
    for (let i = 0; i < s.m.n; i++) if (s.m.owner[i] === i && Number.isNaN(s.m.size[i])) n++;
    const partial = n
      ? `partial: ${n.toLocaleString('en-US')} buffer${n === 1 ? '' : 's'} without a size left out`
      : '';
    charts.memory.setPartial(partial);
    charts.arena.setPartial(partial);
    charts.bands.setPartial(partial);
    summarize(charts, s);
    charts.memory.setData(...memoryData(s));
    setProfile(s);
    charts.timeline.setData(s.m);
    charts.bands.setData(s.m);
    charts.arena.setData(s.m, s.series);
    setSlots(s);
    charts.timeline.setLinks(s.links);
  });
  ctl.on('slots', setSlots);
  ctl.on('profile', setProfile);
  ctl.on('selection', () => {
    charts.timeline.setLinks(ctl.state.links);
    if (linked.selected !== null) charts.timeline.reveal(linked.selected);
  });
  ctl.on('shown', ({ shown: on }) => {
    if (on) for (const c of Object.values(charts)) c.resize();
  }); // measured while hidden
  return charts;
}

export function createView(root, client, options = {}) {
  const ctl = createController(client, options);
  root.classList.add('mpv-app');
  root.replaceChildren();
  createTitlebar(root, ctl);
  const main = el('div', 'mpv-main');
  main.hidden = true;
  root.append(main);
  ctl.on('shown', ({ shown: on }) => {
    main.hidden = !on;
  }); // before the charts measure themselves
  createBodyBar(main, ctl);
  createFigures(main, ctl);
  createOrderFigures(main, ctl);
  createControls(main, ctl);
  createDeferred(main, ctl);
  const atPeak = createAtPeak(main, ctl);
  const chartsBox = el('div', 'mpv-charts');
  main.append(chartsBox);
  let tooltip = null; // made after the charts: it is the last element of the view
  const charts = createCharts(chartsBox, ctl, { tooltip: (ev, name, pos) => tooltip.show(ev, name, pos) });
  main.append(el('p', 'mpv-hint muted', HINT));
  const sweep = createSweep(main, ctl); // memory against a dim (issue 17)
  const compare = createCompare(main, ctl, client); // two plans side by side (issue 17)
  const table = createTable(main, ctl);
  // Every chart has its PNG and SVG, the sweep's and compare's in their panels too.
  createExports(
    table.toolbar,
    ctl,
    { ...charts, sweep: sweep.chart, compare: compare.overlay },
    { sweep: () => sweep.pngTitle(), compare: () => compare.pngTitle() },
  );
  const infoSec = el('details', 'mpv-info');
  infoSec.open = options.infoOpen ?? false;
  const infoBody = el('div');
  infoSec.append(el('summary', '', 'Model'), infoBody);
  main.append(infoSec);
  tooltip = createTooltip(root, ctl);
  ctl.on('info', ({ source, info }) => {
    if (source === 'model') renderModelInfo(infoBody, info);
    else infoBody.replaceChildren(el('p', 'muted', 'A plan document: no model summary.'));
  });

  return {
    root,
    controller: ctl,
    linked: ctl.linked,
    charts,
    atPeak,
    sweep,
    compare,
    version: client.version,
    /** A frozen copy of the public state (phase, name, options, dims, selection, ...), and
     *  `body`: the control-flow body shown, [{node, attribute}] from the main graph ([]: the main graph). */
    get state() {
      const body = Object.freeze(ctl.state.path.map((s) => Object.freeze({ node: s.node, attribute: s.attribute })));
      return Object.freeze({ ...ctl.snapshot(), body });
    },
    /** The plan shown (frozen), or null. */
    get plan() {
      return deepFreeze(ctl.state.plan);
    },
    open: ctl.open,
    setDims: ctl.setDims,
    setValues: ctl.setValues,
    setOptions: ctl.setOptions,
    select: ctl.select,
    /** Show the body at `steps` ([{node, attribute}], outermost first; [] the main graph) of the
     *  plan shown; false when the plan has no such body. */
    openBody: (steps) => {
      const path = ctl.state.plan ? resolveBody(ctl.state.plan, steps ?? []) : null;
      return path ? ctl.openBody(path) : false;
    },
    showPlan: ctl.showPlan,
    cancel: ctl.cancel,
    /** Listen to a public event (PUBLIC_EVENTS); other names are accepted and never fire, as before. */
    on: (type, fn) => (PUBLIC_EVENTS.has(type) ? ctl.on(type, fn) : () => {}),
    destroy() {
      ctl.destroy();
      for (const c of Object.values(charts)) c.destroy();
      sweep.destroy();
      compare.destroy();
      table.destroy();
      root.replaceChildren();
      root.classList.remove('mpv-app');
    },
  };
}
