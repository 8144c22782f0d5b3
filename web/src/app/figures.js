// figures.js -- the plan's figures (naive total, planned peak, lower bound,
// savings, in-place saves), the strategies line, and the deferred panel (the
// values without a size, with the C library's reasons, and the unbound dims).
// Every number is the plan JSON's. Redrawn when a plan is applied.
import { el } from '../charts/base.js';
import { formatBytes, formatInt, formatRatio } from '../data/format.js';
import { planAt } from '../data/plan.js';
import { isCount, toNumber } from '../data/exact.js';

/**
 * The naive total and savings shown: the plan's, or with in-place reuse on,
 * against the naive total of the same plan without it (ctl.state.baseline),
 * so that turning reuse on never lowers the baseline. savings_ratio's rule
 * (docs/semantics.md "The figures of a planned plan"): 1 - peak / naive, 0
 * when naive is 0, 6 significant digits. {naive (a Number, for drawing),
 * naiveExact (a BigInt beyond 2^53, for showing), savings, rebased}.
 */
export function savingsOf({ m, baseline, path }) {
  const base = baseline ? planAt(baseline, path)?.plan : null;
  const naiveExact = base && isCount(base.naive_bytes) ? base.naive_bytes : null;
  if (naiveExact === null || m.peak === null)
    return { naive: m.naive, naiveExact: m.exact.naive, savings: m.savings, rebased: false };
  const naive = toNumber(naiveExact);
  return { naive, naiveExact, savings: naive ? Number((1 - m.peak / naive).toPrecision(6)) : 0, rebased: true };
}

const NAIVE_HINT = 'Every buffer allocated separately (naive_bytes)';

/** The figure cards and the strategies line, appended to `container`. */
export function createFigures(container, ctl) {
  const figures = el('div', 'mpv-figures');
  const figure = (key, label, hint) => {
    const f = el('div', 'mpv-figure');
    f.dataset.figure = key;
    const l = el('div', 'mpv-figure-label', label);
    const v = el('div', 'mpv-figure-value', '—');
    const exact = el('div', 'mpv-figure-exact', '');
    f.title = hint;
    f.append(l, v, exact);
    figures.append(f);
    return { v, exact, card: f };
  };
  const fig = {
    naive: figure('naive', 'Naive total', NAIVE_HINT),
    peak: figure('peak', 'Planned peak', 'Arena or slot memory of the chosen strategy (peak_bytes)'),
    bound: figure(
      'bound',
      'Lower bound',
      'Most bytes live at any one position: no plan can use less (lower_bound_bytes)',
    ),
    savings: figure('savings', 'Savings', '1 - planned peak / naive total (savings_ratio)'),
    inplace: figure(
      'inplace',
      'In-place saves',
      'Planned peak without in-place reuse minus with it (inplace.saved_bytes); turn in-place reuse on to see it',
    ),
  };
  const strategiesLine = el('p', 'mpv-strategies muted');
  // What the whole model's plan assumed rather than knew (an If's branch, a trip count): beside the figures.
  const assumed = el('p', 'mpv-assumed');
  assumed.hidden = true;
  container.append(figures, assumed, strategiesLine);

  function renderAssumptions({ assumptions }) {
    assumed.hidden = assumptions.length === 0;
    if (!assumptions.length) {
      assumed.replaceChildren();
      return;
    }
    const shown = assumptions
      .slice(0, 3)
      .map((a) => a.text)
      .join('; ');
    assumed.replaceChildren(
      el('strong', '', assumptions.length === 1 ? 'Assumed: ' : `Assumed (${assumptions.length}): `),
      document.createTextNode(shown + (assumptions.length > 3 ? `; … ${assumptions.length - 3} more` : '') + '.'),
    );
  }

  function render(s) {
    const { m, inplace } = s;
    const set = (f, v, fmt) => {
      f.v.textContent = fmt(v);
      f.exact.textContent = v === null ? '' : fmt === formatRatio ? `ratio ${v}` : `${formatInt(v)} B`;
    };
    const sv = savingsOf(s);
    // The exact counts (a BigInt beyond 2^53): the card and its exact line both show them.
    set(fig.naive, sv.naiveExact, formatBytes);
    set(fig.peak, m.exact.peak, formatBytes);
    set(fig.bound, m.exact.lowerBound, formatBytes);
    set(fig.savings, sv.savings, formatRatio);
    fig.naive.card.title = sv.rebased
      ? 'Every buffer allocated separately, without in-place reuse: the baseline whatever the options'
      : NAIVE_HINT;
    const ip = m.raw?.inplace;
    set(fig.inplace, ip && ip.enabled && isCount(ip.saved_bytes) ? ip.saved_bytes : null, formatBytes);
    if (!(ip && ip.enabled)) fig.inplace.v.textContent = inplace ? '—' : 'off';
    const st = m.strategies;
    const counts = `${formatInt(m.positions)} positions · ${formatInt(m.rowCount)} buffers · ${formatInt(m.n - m.rowCount)} views`;
    strategiesLine.textContent = st
      ? `Strategies — arena ${formatBytes(st.arena)} · slots ${formatBytes(st.slots)} · exact-size reuse ${formatBytes(st.exact_reuse)}` +
        (st.arena_heuristic ? ` · arena heuristic ${st.arena_heuristic}` : '') +
        ` · ${counts}`
      : counts;
  }
  ctl.on('applied', render);
  ctl.on('applied', renderAssumptions);
}

// " Reasons: a (3); b (1)." -- the C library's reasons, most frequent first.
function reasonSummary(items) {
  const counts = new Map();
  for (const u of items) counts.set(u.reason, (counts.get(u.reason) ?? 0) + 1);
  if (!counts.size) return '';
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([r, c]) => `${r} (${formatInt(c)})`);
  return ` Reasons: ${top.join('; ')}${counts.size > 3 ? '; …' : ''}.`;
}

const LIST_MAX = 500;

/** The deferred panel, appended to `container`: shown while a plan is deferred or has unplanned values. */
export function createDeferred(container, ctl) {
  const box = el('div', 'mpv-deferred');
  box.hidden = true;
  container.append(box);

  const list = (title, items, role) => {
    if (!items.length) return;
    const d = el('details', 'mpv-unknown');
    d.dataset.role = role;
    d.append(el('summary', '', `${title} (${formatInt(items.length)})`));
    const ul = el('ul');
    for (const u of items.slice(0, LIST_MAX)) {
      const li = el('li');
      const b = el('button', 'mpv-link', u.name);
      b.type = 'button';
      b.addEventListener('click', () => ctl.select(u.name));
      li.append(b, el('span', 'muted', ` — ${u.reason}`));
      ul.append(li);
    }
    if (items.length > LIST_MAX) ul.append(el('li', 'muted', `… ${formatInt(items.length - LIST_MAX)} more`));
    d.append(ul);
    box.append(d);
  };
  function render({ m }) {
    if (m.planned && !m.unplanned.length) {
      box.hidden = true;
      return;
    }
    box.replaceChildren();
    if (!m.planned) {
      const n = m.unknownValues.length,
        nd = m.unknownDims.length;
      box.append(
        el(
          'p',
          'mpv-deferred-head',
          `Deferred: ${formatInt(n)} value${n === 1 ? '' : 's'} have no known size yet` +
            (nd ? `, and ${formatInt(nd)} symbolic dim${nd === 1 ? ' is' : 's are'} unbound (set them above).` : '.') +
            reasonSummary(m.unknownValues) +
            ' The timeline shows every interval; offsets and totals wait for the sizes.',
        ),
      );
    }
    if (m.unknownDims.length) {
      const p = el('p', 'mpv-unbound');
      p.append(el('strong', '', 'Unbound dims: '), document.createTextNode(m.unknownDims.join(', ')));
      box.append(p);
    }
    list('Values without a known size', m.unknownValues, 'unknown-values');
    list('Unplanned values', m.unplanned, 'unplanned');
    box.hidden = false;
  }
  ctl.on('applied', render);
}
