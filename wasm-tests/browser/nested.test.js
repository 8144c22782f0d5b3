// Control flow on the page: the example opens planned complete (Silero VAD
// v5 with its dims and sr preset), the input-value control, a control-flow
// node's memory on the charts and in the table, opening a body (a click, the
// breadcrumb, the branch selector), the search across bodies and the note on
// what a plan assumed. The native CLI is the reference for every figure.
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { EXAMPLE } from '../../web/src/example.js';
import { dimArgs } from '../viz-fixtures.js';
import { writeHash } from '../../web/src/app/urlstate.js';
import { planAssumptions } from '../../web/src/data/plan.js';
import {
  artifact,
  barPoint,
  cliJson,
  cliPlan,
  expectPlanShown,
  openPage,
  revealRow,
  shown,
  TIMEOUT,
  useBrowser,
  waitPlan,
} from './harness.js';

const env = useBrowser({ setup: (page, e) => openPage(page, e) });
const presetArgs = (values = EXAMPLE.preset.values) => [
  ...dimArgs(EXAMPLE.preset.dims),
  ...Object.entries(values).flatMap(([k, v]) => ['--value', `${k}=${v}`]),
];
const PLAN = cliPlan(EXAMPLE_SRC, presetArgs());
const PROFILE = cliJson('profile', EXAMPLE_SRC, presetArgs());
const body = (plan, node, attribute) => plan.subgraphs.find((e) => e.node === node && e.attribute === attribute);
/** The figures shown equal those of plan document `doc` (a body's plan has the same fields). */
const figuresOf = (page) => shown(page).then((s) => s.figures);
const exact = (v) => (v === null ? '' : `${v.toLocaleString('en-US')} B`);
/** The Weights and Total-to-fit cards: [value, exact line, note, title] each. */
const memoryCards = (page) =>
  page
    .$$eval('.mpv-figure[data-figure="weights"], .mpv-figure[data-figure="total"]', (fs) =>
      fs.map((f) => [
        f.dataset.figure,
        f.querySelector('.mpv-figure-value').textContent,
        f.querySelector('.mpv-figure-exact').textContent,
        f.querySelector('.mpv-figure-note')?.textContent ?? null,
        f.title,
      ]),
    )
    .then((cards) => cards.sort((a, b) => (a[0] === 'weights' ? -1 : 1) - (b[0] === 'weights' ? -1 : 1))); // weights, total (the cards' order is checked apart)
const EXAMPLE_CARDS = [
  [
    'weights',
    '3.09 MiB',
    '3,239,040 B',
    null,
    'Initializers and constants folded at load, of the main graph and every body, kept once loaded: 173 values of known size. Never in the arena (weights.bytes). Not counted: 264 values (5,302,016 B) read or computed at load and then dropped, such as a folded chain’s intermediates (weights.load_only_bytes)',
  ],
  [
    'total',
    '3.10 MiB',
    '3,249,608 B',
    'incl. 3.01 KiB of inputs',
    'What a runtime holds to run the model: weights 3,239,040 B + graph inputs 3,080 B (3 values, outside the arena) + planned peak 7,488 B = 3,249,608 B (total_bytes)',
  ],
];
const crumbs = (page) => page.$$eval('.mpv-crumbs li', (lis) => lis.map((li) => li.textContent));

describe('the example and input values', () => {
  it('the page opens on the example planned complete: real figures, the dims and sr preset', async () => {
    const page = env.page;
    await waitPlan(page, PLAN);
    expect(PLAN.status).toBe('planned');
    const s = await shown(page);
    expectPlanShown(s, PLAN);
    const cards = await page.$$eval(
      '.mpv-figure[data-figure="naive"], .mpv-figure[data-figure="peak"], .mpv-figure[data-figure="bound"], .mpv-figure[data-figure="savings"]',
      (fs) => fs.map((f) => f.querySelector('.mpv-figure-value').textContent),
    );
    expect(
      cards.filter((t) => t === '—'),
      'no dashes on the first screen',
    ).toEqual([]);
    // the answer first, then how it is made up
    expect(await page.$$eval('.mpv-figure', (fs) => fs.map((f) => f.dataset.figure))).toEqual([
      'total',
      'naive',
      'peak',
      'bound',
      'savings',
      'inplace',
      'weights',
    ]);
    // the bodies, counted first, each with its memory, set apart from one another
    expect(await page.textContent('.mpv-body-list')).toBe(
      "Bodies here (2): If 'If_0' then_branch (branch taken) · 6.19 KiB; If 'If_0' else_branch (branch not taken) · not known",
    );
    // the slot sums read below the aligned arena and its bound: the line says why
    expect(await page.textContent('.mpv-strategies')).toMatch(
      /^Strategies — arena 7\.31 KiB · slots 7\.19 KiB · exact-size reuse 7\.19 KiB \(slot sums, raw sizes without alignment padding\) · /,
    );
    // Weights kept once loaded (both If branches' and 8 B of the main graph's) and the total to fit:
    // 3,239,040 + inputs 2,048 + 1,024 + 8 + peak 7,488 (memory-totals.test.js).
    expect([PLAN.weights.bytes, PLAN.inputs.bytes, PLAN.total_bytes]).toEqual([3239040, 3080, 3249608]);
    expect(await memoryCards(page)).toEqual(EXAMPLE_CARDS);
    expect(await page.inputValue('.mpv-value input[data-value="sr"]')).toBe('16000');
    for (const [d, v] of Object.entries(EXAMPLE.preset.dims))
      expect(await page.inputValue(`.mpv-dim input[data-dim="${d}"]`), d).toBe(String(v));
    expect(await page.isHidden('.mpv-deferred'), 'no deferred panel').toBe(true);
    await page.screenshot({ path: artifact('browser-example-planned.png'), fullPage: true });
  });

  it("a value that does not fit the input is said so in the page's words and not sent; a good one re-plans", async () => {
    const page = env.page;
    await page.fill('.mpv-value input[data-value="sr"]', '16k');
    expect(await page.textContent('.mpv-value .mpv-value-error')).toBe('sr takes whole numbers; "16k" is not one');
    await page.waitForTimeout(400);
    expect(await page.evaluate(() => window.memplanView.plan.peak_bytes), 'the plan stays').toBe(PLAN.peak_bytes);
    await page.fill('.mpv-value input[data-value="sr"]', '8000');
    expect(await page.textContent('.mpv-value .mpv-value-error')).toBe('');
    const at8k = cliPlan(EXAMPLE_SRC, presetArgs({ sr: 8000 }));
    await waitPlan(page, at8k);
    expectPlanShown(await shown(page), at8k);
    expect(await page.evaluate(() => window.memplanView.state.values)).toEqual({ sr: '8000' });
  });

  it('with sr unbound the plan says next to the figures that it assumed a branch', async () => {
    const page = env.page;
    await page.fill('.mpv-value input[data-value="sr"]', '16000');
    await waitPlan(page, PLAN);
    // With sr bound no branch is assumed: only the file's order (ONNX Runtime runs another) and
    // the kernel workspace of its bodies, which the plan leaves out.
    const assumed = planAssumptions(PLAN);
    expect(assumed.map((a) => a.kind)).toEqual(['order', 'workspace']);
    const workspace = `Assumed (2): ${assumed.map((a) => a.text).join('; ')}.`;
    expect(await page.textContent('.mpv-assumed'), 'no branch with sr bound').toBe(workspace);
    await page.fill('.mpv-value input[data-value="sr"]', '');
    const unbound = cliPlan(EXAMPLE_SRC, dimArgs(EXAMPLE.preset.dims));
    await waitPlan(page, unbound);
    // Every transient with an assumption in the main graph and the counted bodies, main graph first.
    const want = [];
    const walk = (plan) => {
      for (const t of plan.transients)
        if (t.assumption)
          want.push(
            `If '${t.node}': ${t.assumption} (${plan.subgraphs.find((e) => e.node === t.node && e.counted).attribute})`,
          );
      for (const e of plan.subgraphs) if (e.counted) walk(e.plan);
    };
    walk(unbound);
    // the else branch's plan is deferred (its size is not known), so it may be the larger
    expect(want[0]).toBe(
      "If 'If_0': the condition is not known: a branch of unknown size may be the larger (else_branch)",
    );
    expect(await page.textContent('.mpv-assumed')).toBe(`Assumed (${want.length}): ${want.join('; ')}.`);
    await page.fill('.mpv-value input[data-value="sr"]', '16000');
    await waitPlan(page, PLAN);
    expect(await page.textContent('.mpv-assumed')).toBe(workspace);
  });
});

describe('at the peak', () => {
  const listed = (page) =>
    page.$$eval('.mpv-atpeak-table tbody tr', (trs) =>
      trs.map((tr) => [tr.dataset.name, ...[...tr.cells].slice(1).map((td) => td.textContent)]),
    );
  const row = (b) => [
    b.name,
    b.op_type ?? '—',
    b.node ?? '—',
    b.dtype ?? '—',
    b.shape ? `[${b.shape.join(', ')}]` : '—',
    b.bytes.toLocaleString('en-US'),
    `${(b.share * 100).toFixed(1)}%`,
  ];

  it("lists the plan JSON's at_peak, largest first; any position can be picked; a click selects the buffer everywhere", async () => {
    const page = env.page;
    await page.fill('.mpv-value input[data-value="sr"]', '16000');
    await waitPlan(page, PLAN);
    expect(await listed(page)).toEqual(PLAN.at_peak.buffers.map(row));
    expect(await page.textContent('.mpv-atpeak summary')).toBe(
      `At the peak — position ${PLAN.at_peak.position}, 7.31 KiB`,
    );
    // Position 1: what the CLI's values say is live there (owners of known size), largest first.
    const p = 1;
    const live = PLAN.values
      .filter((v) => !v.view && v.size !== null && v.start <= p && v.end >= p)
      .map((v) => ({
        name: v.name,
        bytes: v.size,
        dtype: v.dtype,
        shape: v.shape,
        share: Number(((Math.ceil(v.size / 64) * 64) / PLAN.lower_bound_bytes).toPrecision(6)),
        op_type: PLAN.nodes.find((nd) => nd.outputs.includes(v.name))?.op_type,
        node: PLAN.nodes.find((nd) => nd.outputs.includes(v.name))?.name,
      }))
      .sort((a, b) => b.bytes - a.bytes);
    expect(live.length).toBeGreaterThan(0);
    await page.fill('.mpv-atpeak-pos', String(p));
    await page.press('.mpv-atpeak-pos', 'Enter');
    expect(await listed(page)).toEqual(live.map(row));
    // A re-plan of the same graph keeps the picked position (the same nodes).
    await page.evaluate(() => window.memplanView.view.controller.setValues({ sr: '16000' }));
    await waitPlan(page, PLAN);
    expect(await page.textContent('.mpv-atpeak summary')).toMatch(/^At position 1 — /);
    expect(await listed(page)).toEqual(live.map(row));
    await page.click(`.mpv-atpeak-table tr[data-name="${live[0].name}"] button`);
    expect(await page.evaluate(() => window.memplanView.state.selected)).toBe(live[0].name);
    await page.click('.mpv-atpeak .mpv-btn');
    expect(await listed(page)).toEqual(PLAN.at_peak.buffers.map(row));
    await page.evaluate(() => window.memplanView.select(null));
  });
});

describe('memory inside control flow', () => {
  it("the If's body memory is a buffer at its position: in the table (labelled with the node) and in the memory chart's live bytes", async () => {
    const page = env.page;
    await page.fill('.mpv-value input[data-value="sr"]', '16000');
    await waitPlan(page, PLAN);
    const t = PLAN.transients[0];
    await revealRow(page, t.node);
    const row = await page.$eval(`.mpv-table tr[data-name="${t.node}"]`, (tr) =>
      [...tr.cells].map((td) => td.textContent),
    );
    expect(row).toContain('body memory (If)');
    expect(row).toContain(t.bytes.toLocaleString('en-US'));
    const live = await page.evaluate((p) => window.memplanView.view.controller.state.series.liveBound[p], t.position);
    expect(live, 'live bytes at the If: its outputs, its input and its body').toBe(PLAN.at_peak.bytes);
    expect(PLAN.at_peak.position).toBe(t.position);
    expect(await page.evaluate(() => window.memplanView.view.controller.state.series.maxLiveBound)).toBe(
      PLAN.lower_bound_bytes,
    );
  });

  it("clicking it opens the body's own figures, charts and tables; the selector switches branch; the breadcrumb goes back", async () => {
    const page = env.page;
    const t = PLAN.transients[0];
    const then = body(PLAN, t.node, 'then_branch'),
      other = body(PLAN, t.node, 'else_branch');
    expect([then.branch_taken, then.counted, other.counted]).toEqual([true, true, false]);
    const pt = await barPoint(page, 'timeline', t.node);
    await page.mouse.click(pt.x, pt.y);
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 1, null, {
      timeout: TIMEOUT,
    });
    expect(await crumbs(page)).toEqual(['main graph', `If '${t.node}' then_branch (branch taken)`]);
    expect(await figuresOf(page)).toMatchObject({
      naive: exact(then.plan.naive_bytes),
      peak: exact(then.plan.peak_bytes),
      bound: exact(then.plan.lower_bound_bytes),
    });
    // A body shown: the whole model's weights and total (a runtime loads every body's weights).
    expect(await memoryCards(page), 'the whole model in a body').toEqual([
      [
        'weights',
        '3.09 MiB',
        '3,239,040 B',
        null,
        'Initializers and constants folded at load of the whole model (the main graph and every body), not only the body shown, kept once loaded: 173 values of known size. Never in the arena (weights.bytes). Not counted: 264 values (5,302,016 B) read or computed at load and then dropped, such as a folded chain’s intermediates (weights.load_only_bytes)',
      ],
      [
        'total',
        '3.10 MiB',
        '3,249,608 B',
        'incl. 3.01 KiB of inputs',
        'What a runtime holds to run the model (the whole model, not only the body shown): weights 3,239,040 B + graph inputs 3,080 B (3 values, outside the arena) + planned peak 7,488 B = 3,249,608 B (total_bytes)',
      ],
    ]);
    expect(
      Number(await page.getAttribute('.mpv-table', 'data-rows')),
      "the body's values and its own bodies' memory",
    ).toBe(then.plan.values.length + then.plan.transients.length);
    // The memory chart stacks the body's own per-node profile: its totals are
    // `profile --json`'s for the body's nodes (with the same dims and values).
    const bodyProfile = PROFILE.subgraphs.find((e) => e.name === t.node && e.attribute === 'then_branch');
    const totals = await page.evaluate(() => {
      const p = window.memplanView.view.controller.state.profile;
      return p?.ok ? Array.from(p.total) : null;
    });
    expect(totals).toEqual(bodyProfile.nodes.map((n) => n.profile.total_bytes));
    await page.screenshot({ path: artifact('browser-body.png'), fullPage: true });

    await page.selectOption('.mpv-branch', {
      label: await page.$eval('.mpv-branch option:not(:checked)', (o) => o.textContent),
    });
    await page.waitForFunction(
      () => window.memplanView.view.controller.state.path[0]?.attribute === 'else_branch',
      null,
      { timeout: TIMEOUT },
    );
    expect(await crumbs(page)).toEqual(['main graph', `If '${t.node}' else_branch (branch not taken)`]);
    expect(await page.textContent('.mpv-badge')).toBe(other.plan.status);
    expect(Number(await page.getAttribute('.mpv-table', 'data-rows'))).toBe(
      other.plan.values.length + other.plan.transients.length,
    );

    await page.click('.mpv-crumbs button');
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 0, null, {
      timeout: TIMEOUT,
    });
    expectPlanShown(await shown(page), PLAN);
  });

  it("the table's search finds values inside bodies and opens the body holding them", async () => {
    const page = env.page;
    // A value two bodies down: the taken branch's decoder LSTM.
    const inner = body(PLAN, 'If_0', 'then_branch').plan.subgraphs.find(
      (e) => e.counted && e.plan.values.some((v) => /LSTM_output_0$/.test(v.name)),
    );
    const name = inner.plan.values.find((v) => /LSTM_output_0$/.test(v.name)).name;
    await page.fill('.mpv-filter', name.replace(/[/.]/g, '\\$&'));
    await page.waitForSelector('.mpv-body-hits:not([hidden]) button', { timeout: 5000 });
    const hits = await page.$$eval('.mpv-body-hits li', (lis) => lis.map((li) => li.textContent));
    expect(hits).toEqual([
      `If 'If_0' then_branch (branch taken) › If '${inner.node}' ${inner.attribute} (branch taken) — 1 match`,
    ]);
    await page.click('.mpv-body-hits button');
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 2, null, {
      timeout: TIMEOUT,
    });
    expect(await page.$$eval('.mpv-table tbody tr[data-name]', (trs) => trs.map((tr) => tr.dataset.name))).toEqual([
      name,
    ]);
    await page.fill('.mpv-filter', '');
    await page.click('.mpv-crumbs button >> nth=0');
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 0, null, {
      timeout: TIMEOUT,
    });
  });
});

describe('a link to a value inside a body', () => {
  const then = () => body(PLAN, 'If_0', 'then_branch'),
    other = () => body(PLAN, 'If_0', 'else_branch');
  // The example as the page opens it: its dims and sr, arena, align 64, in-place off.
  const linkTo = (steps, selected) =>
    writeHash({
      strategy: 'arena',
      align: 64,
      inplace: false,
      dims: EXAMPLE.preset.dims,
      values: EXAMPLE.preset.values,
      body: steps,
      selected,
    });
  /** A new page at the link; resolves once the view shows `name` selected (the link applied). */
  async function openLink(hash, name) {
    const page = await env.newPage();
    await page.goto(`${env.base}#${hash}`, { timeout: TIMEOUT });
    await waitPlan(page, PLAN);
    await page.waitForFunction((n) => window.memplanView.state.selected === n, name, { timeout: TIMEOUT });
    return page;
  }
  const where = (page) =>
    page.evaluate(() => ({
      body: window.memplanView.state.body.map((s) => `${s.node}:${s.attribute}`),
      selected: window.memplanView.state.selected,
      shown: window.memplanView.view.controller.state.body.values.some(
        (v) => v.name === window.memplanView.state.selected,
      ),
    }));
  const selectedRow = async (page, name) => {
    await revealRow(page, name);
    return page.evaluate(() => document.querySelector('.mpv-table tbody tr.selected')?.dataset.name ?? null);
  };

  it('opens the branch it names (the one not taken) with the value selected there; the URL keeps both', async () => {
    const names = new Set(then().plan.values.map((v) => v.name));
    const v = other()
      .plan.values.filter((x) => !names.has(x.name))
      .at(-1);
    expect(v, 'a value of the branch not taken only').toBeTruthy();
    const steps = [{ node: 'If_0', attribute: 'else_branch' }];
    const page = await openLink(linkTo(steps, v.name), v.name);
    expect(await where(page)).toEqual({ body: ['If_0:else_branch'], selected: v.name, shown: true });
    expect(await crumbs(page)).toEqual(['main graph', "If 'If_0' else_branch (branch not taken)"]);
    expect(await page.inputValue('.mpv-branch'), 'the branch selector shows the branch').toBe(
      String(PLAN.subgraphs.indexOf(other())),
    );
    expect(await selectedRow(page, v.name), 'the selected row').toBe(v.name);
    // The hash is written back as the view is: the body, then the selection.
    await page.waitForFunction(() => /body=If_0%3Aelse_branch/.test(location.hash), null, { timeout: 5000 });
    const q = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect([q.getAll('body'), q.get('select')]).toEqual([['If_0:else_branch'], v.name]);
    // Back to the main graph: the body leaves the URL.
    await page.click('.mpv-crumbs button');
    await page.waitForFunction(() => !/body=/.test(location.hash), null, { timeout: 5000 });
    expect((await where(page)).body).toEqual([]);
    await page.close();
  });

  it('two bodies down: each step opened, the value selected in the innermost', async () => {
    const inner = then().plan.subgraphs.find(
      (e) => e.counted && e.plan.values.some((x) => /LSTM_output_0$/.test(x.name)),
    );
    const name = inner.plan.values.find((x) => /LSTM_output_0$/.test(x.name)).name;
    const steps = [
      { node: 'If_0', attribute: 'then_branch' },
      { node: inner.node, attribute: inner.attribute },
    ];
    const page = await openLink(linkTo(steps, name), name);
    expect(await where(page)).toEqual({
      body: steps.map((s) => `${s.node}:${s.attribute}`),
      selected: name,
      shown: true,
    });
    expect(await selectedRow(page, name)).toBe(name);
    await page.close();
    // A link written before the hash named the body (select= only) finds the one body holding the value.
    const old = await openLink(linkTo([], name), name);
    expect(await where(old)).toEqual({
      body: steps.map((s) => `${s.node}:${s.attribute}`),
      selected: name,
      shown: true,
    });
    await old.close();
  });
});

describe('the value table with the keys', () => {
  it("↑/↓ select rows without opening a body, Enter opens the control-flow node's body, Escape clears", async () => {
    const page = env.page;
    const state = () =>
      page.evaluate(() => ({
        selected: window.memplanView.state.selected,
        depth: window.memplanView.view.controller.state.path.length,
      }));
    // The previous test cleared the search: wait for the table to show the main graph again.
    await page.waitForFunction(
      () => window.memplanView.view.controller.tableView().rows.some((r) => r.name === 'If_0'),
      null,
      { timeout: TIMEOUT },
    );
    const order = await page.evaluate(() => window.memplanView.view.controller.tableView().rows.map((r) => r.name));
    const k = order.indexOf('If_0');
    expect(k).toBeGreaterThan(0);
    await page.focus('.mpv-table-wrap');
    await page.keyboard.press('ArrowDown');
    expect(await state()).toEqual({ selected: order[0], depth: 0 });
    await page.keyboard.press('ArrowDown');
    expect(await state()).toEqual({ selected: order[1], depth: 0 });
    await page.evaluate((n) => window.memplanView.select(n), order[k - 1]);
    await page.keyboard.press('ArrowDown');
    expect(await state(), "the If's row is selected, its body not opened").toEqual({ selected: 'If_0', depth: 0 });
    await page.keyboard.press('ArrowUp');
    expect(await state()).toEqual({ selected: order[k - 1], depth: 0 });
    await page.keyboard.press('Escape');
    expect(await state()).toEqual({ selected: null, depth: 0 });
    await page.evaluate(() => window.memplanView.select('If_0'));
    await page.focus('.mpv-table-wrap');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 1, null, {
      timeout: TIMEOUT,
    });
    await page.click('.mpv-crumbs button');
    await page.waitForFunction(() => window.memplanView.view.controller.state.path.length === 0, null, {
      timeout: TIMEOUT,
    });
  });
});

describe('dims made up inside the model', () => {
  it('"Set empty to 1" binds the input dims only: the dims shape inference made up stay unbound, and the plan is not planned on a guess', async () => {
    const page = env.page;
    await page.evaluate(() => window.memplanView.setModel('models/example.onnx'));
    const bare = cliPlan(EXAMPLE_SRC);
    await waitPlan(page, bare);
    const inputDims = ['input:0', 'input:1', 'state:1'];
    expect(
      await page.$$eval('.mpv-dims-list:not(.mpv-dims-other *) input', (is) => is.map((i) => i.dataset.dim)),
    ).toEqual(inputDims);
    // The plan offers the input dims only; the dims made up inside the model are listed apart
    // (unknown.internal_dims, with why they exist) and never become a dim input.
    expect(bare.unknown.dims).toEqual(inputDims);
    expect(bare.unknown.internal_dims.length).toBeGreaterThan(0);
    expect(await page.$$eval('.mpv-dims-other input', (is) => is.map((i) => i.dataset.dim))).toEqual([]);
    expect(await page.getAttribute('.mpv-dim input[data-dim="input:1"]', 'aria-label')).toBe(
      'dim input:1 (input input, axis 1)',
    );
    await page.click('.mpv-dims-all');
    const filled = cliPlan(EXAMPLE_SRC, dimArgs({ 'input:0': 1, 'input:1': 1, 'state:1': 1 }));
    await waitPlan(page, filled);
    expect(await page.evaluate(() => ({ ...window.memplanView.state.dims }))).toEqual({
      'input:0': '1',
      'input:1': '1',
      'state:1': '1',
    });
    expect(filled.status, 'sr unbound: the branch is not known').toBe('deferred');
    expect(await page.textContent('.mpv-badge')).toBe('deferred');
  });

  it("a deferred plan's memory and arena charts say they are partial, with the count of buffers left out", async () => {
    const page = env.page;
    const plan = cliPlan(EXAMPLE_SRC, dimArgs({ 'input:0': 1, 'input:1': 1, 'state:1': 1 }));
    const n =
      plan.values.filter((v) => !v.view && v.size === null).length +
      plan.transients.filter((t) => t.bytes === null).length;
    expect(n).toBeGreaterThan(0);
    for (const chart of ['memory', 'arena']) {
      expect(await page.textContent(`[data-chart="${chart}"] .mpv-chart-partial`), chart).toBe(
        `partial: ${n} buffer${n === 1 ? '' : 's'} without a size left out`,
      );
    }
    await page.evaluate((p) => window.memplanView.setValues(p), EXAMPLE.preset.values);
    await page.evaluate((d) => window.memplanView.setDims(d), EXAMPLE.preset.dims);
    await waitPlan(page, PLAN);
    expect(await page.isHidden('[data-chart="memory"] .mpv-chart-partial'), 'planned: not partial').toBe(true);
  });
});
