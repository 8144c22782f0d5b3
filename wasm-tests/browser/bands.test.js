// Active memory (charts/bands.js): each live buffer a band as tall as its
// bytes, stacked oldest first; colours by op type or module with a legend;
// a click on a band selects the buffer everywhere. Every expectation is
// computed here from the CLI's plan JSON, not from the page's code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeModel } from '../onnx-encode.js';
import { MEDIUM } from '../viz-fixtures.js';
import { artifact, cliPlan, fixturePlan, openFile, openPlanned, useBrowser } from './harness.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, MEDIUM) });
let page;
beforeAll(() => {
  page = env.page;
});

/** The buffers of a plan JSON that the chart draws: owners (not views) with a known size. */
const owners = (plan) => plan.values.filter((v) => !v.view && v.size !== null);
/** Bytes live at each position, as the chart stacks them. */
function totals(plan) {
  const t = new Array(plan.positions).fill(0);
  for (const v of owners(plan)) for (let p = v.start; p <= v.end; p++) t[p] += v.size;
  return t;
}
/** The stack at p, bottom first: live owners by start, then end, then order in the plan. */
const stack = (plan, p) =>
  owners(plan)
    .map((v, k) => ({ ...v, k }))
    .filter((v) => v.start <= p && p <= v.end)
    .sort((a, b) => a.start - b.start || a.end - b.end || a.k - b.k);

/** The chart's geometry: the plot's height in CSS px, and the stack drawn at position p. */
const column = (p) =>
  page.evaluate((pos) => {
    const c = window.memplanView.view.charts.bands;
    c.renderNow();
    const r = document.querySelector('[data-chart="bands"] .zoom-surface').getBoundingClientRect();
    return { h: r.height, bands: c.columnAt(pos) };
  }, p);

describe('active memory', () => {
  it('at the peak, the bands are the live buffers oldest first, each as tall as its bytes', async () => {
    const plan = fixturePlan(MEDIUM);
    const t = totals(plan);
    const max = Math.max(...t);
    const p = t.indexOf(max);
    const { h, bands } = await column(p);
    const want = stack(plan, p);
    const pxPerByte = h / (max * 1.04); // the y axis runs to 4% over the highest stack
    // Bands under a device pixel are not drawn; every one drawn is in the stack's order.
    const drawn = want.filter((v) => v.size * pxPerByte >= 1.5).map((v) => v.name);
    const got = bands.map((b) => b.name);
    expect(
      got.filter((n) => drawn.includes(n)),
      'the buffers at least 1.5 px tall, bottom first',
    ).toEqual(drawn);
    const order = want.map((v) => v.name);
    expect(
      got.map((n) => order.indexOf(n)),
      'bottom to top, oldest first',
    ).toEqual(got.map((n) => order.indexOf(n)).sort((a, b) => a - b));
    // Heights: each band's is its bytes on the y scale, to a device pixel (rounded edges).
    for (const b of bands) {
      const v = want.find((x) => x.name === b.name);
      expect(Math.abs(b.y0 - b.y1 - v.size * pxPerByte), `height of ${b.name}`).toBeLessThanOrEqual(1.01);
    }
    // The stack reaches the total live at the peak.
    const top = Math.min(...bands.map((b) => b.y1)),
      bottom = Math.max(...bands.map((b) => b.y0));
    expect(Math.abs(bottom - top - max * pxPerByte), 'stack height').toBeLessThanOrEqual(1.01);
    await page.evaluate(() => document.querySelector('[data-chart="bands"]').scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: artifact('browser-bands.png') });
  });

  it('a zoomed view draws, from the bands kept per position, what a fresh chart draws', async () => {
    const got = await page.evaluate(() => {
      const { linked, charts } = window.memplanView.view;
      const c = charts.bands;
      const m = window.memplanView.view.controller.state.m;
      const [a, b] = linked.fullDomain;
      const columns = () => {
        c.renderNow();
        const out = [];
        for (let p = 0; p < m.positions; p++) {
          const col = c.columnAt(p);
          if (col) out.push([p, col]);
        }
        return out;
      };
      columns(); // the full view: bands kept for the positions it shows
      linked.setXDomain([a + (b - a) / 4, a + (b - a) / 2]);
      const kept = columns(); // many of them shown again, from what was kept
      c.setData(m); // a fresh chart: nothing kept
      const fresh = columns();
      linked.setXDomain(null);
      return { kept, fresh };
    });
    expect(got.kept.length).toBeGreaterThan(0);
    expect(got.kept).toEqual(got.fresh);
  });

  it('the legend lists the op types by the bytes x positions they cover, largest first', async () => {
    const plan = fixturePlan(MEDIUM);
    const opOf = new Map(plan.nodes.flatMap((nd) => nd.outputs.map((o) => [o, nd.op_type])));
    const area = new Map();
    for (const v of owners(plan)) {
      const op = opOf.get(v.name) ?? '(graph input)';
      area.set(op, (area.get(op) ?? 0) + v.size * (v.end - v.start + 1));
    }
    const ranked = [...area].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const want =
      ranked.length > 12
        ? ranked
            .slice(0, 11)
            .map((x) => x[0])
            .concat('other')
        : ranked.map((x) => x[0]);
    const got = await page.evaluate(() =>
      [...document.querySelectorAll('[data-chart="bands"] .mpv-legend-item')].map((li) => li.dataset.group),
    );
    expect(got).toEqual(want);
    const areas = await page.evaluate(() => window.memplanView.view.charts.bands.grouping.groups.map((g) => g.area));
    expect(areas.slice(0, 3)).toEqual(ranked.slice(0, 3).map((x) => x[1]));
  });

  it('a click on a band selects its buffer in the table; Escape clears it', async () => {
    const plan = fixturePlan(MEDIUM);
    const t = totals(plan);
    const p = t.indexOf(Math.max(...t));
    const v = stack(plan, p).sort((a, b) => b.size - a.size)[0]; // the tallest band at the peak
    const at = await page.evaluate(
      ([pos, name]) => {
        const el = document.querySelector('[data-chart="bands"]');
        el.scrollIntoView({ block: 'center' });
        const c = window.memplanView.view.charts.bands;
        c.renderNow();
        const b = c.columnAt(pos).find((x) => x.name === name);
        const r = el.querySelector('.mpv-svg').getBoundingClientRect();
        const view = window.memplanView.view;
        const s = view.controller.state.m;
        const z = el.querySelector('.zoom-surface').getBoundingClientRect();
        return { x: z.left + ((pos + 0.5) / s.positions) * z.width, y: r.top + (b.y0 + b.y1) / 2 };
      },
      [p, v.name],
    );
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction((n) => document.querySelector('.mpv-tip-title')?.textContent === n, v.name, {
      timeout: 5000,
    });
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction(
      (n) => document.querySelector('.mpv-table tbody tr.selected')?.dataset.name === n,
      v.name,
      {
        timeout: 5000,
      },
    );
    // the chart draws its marks in the next animation frame, after the table row
    await page
      .waitForFunction(() => document.querySelectorAll('[data-chart="bands"] .mark-selected').length === 1, null, {
        timeout: 5000,
      })
      .catch(() => {}); // the count below says what is drawn
    expect(await page.locator('[data-chart="bands"] .mark-selected').count()).toBe(1);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.memplanView.state.selected === null, null, { timeout: 5000 });
  });

  it('by module: the node-name prefixes at the depth chosen; by op type', async () => {
    // Three modules, one and two levels deep, and a node at the top level; 16 KiB and 64 KiB buffers.
    const spec = {
      nodes: [
        { opType: 'Relu', name: '/enc/layer.0/Relu', inputs: ['x'], outputs: ['a'] },
        { opType: 'MatMul', name: '/enc/layer.1/MatMul', inputs: ['a', 'w'], outputs: ['b'] },
        { opType: 'Relu', name: '/enc/layer.1/Relu', inputs: ['b'], outputs: ['c'] },
        { opType: 'Sigmoid', name: '/dec/Sigmoid', inputs: ['c'], outputs: ['d'] },
        { opType: 'Add', name: 'top_add', inputs: ['d', 'c'], outputs: ['y'] },
      ],
      inputs: [
        { name: 'x', elemType: 1, shape: [64, 64] },
        { name: 'w', elemType: 1, shape: [64, 256] },
      ],
      outputs: [{ name: 'y', elemType: 1, shape: [64, 256] }],
    };
    const dir = mkdtempSync(join(tmpdir(), 'mp-bands-'));
    const file = join(dir, 'modules.onnx');
    writeFileSync(file, Buffer.from(encodeModel(spec)));
    let plan;
    try {
      await openFile(page, file);
      plan = cliPlan(file, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(plan.status).toBe('planned');
    const nodeOf = new Map(plan.nodes.flatMap((nd) => nd.outputs.map((o) => [o, nd])));
    const expectFor = (keyOf) => {
      const area = new Map();
      for (const v of owners(plan)) {
        const nd = nodeOf.get(v.name);
        const k = nd === undefined ? '(graph input)' : keyOf(nd);
        area.set(k, (area.get(k) ?? 0) + v.size * (v.end - v.start + 1));
      }
      return [...area].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    };
    const legend = async (mode) => {
      await page.selectOption('[data-chart="bands"] .mpv-bands-mode', mode);
      return page.evaluate(() => window.memplanView.view.charts.bands.grouping.groups.map((g) => [g.label, g.area]));
    };
    const depth1 = ({ name }) =>
      name.startsWith('/enc/') ? '/enc/' : name.startsWith('/dec/') ? '/dec/' : '(top level)';
    const depth2 = (nd) => (nd.name.startsWith('/enc/') ? nd.name.slice(0, nd.name.lastIndexOf('/') + 1) : depth1(nd));
    const one = await legend('module1');
    expect(one, 'one level').toEqual(expectFor(depth1));
    expect(one.map((g) => g[0]).sort(), 'the modules').toEqual(['(top level)', '/dec/', '/enc/']);
    const two = await legend('module2');
    expect(two, 'two levels').toEqual(expectFor(depth2));
    expect(
      two.map((g) => g[0]),
      'layer.1 (64 KiB buffers) is the largest',
    ).toContain('/enc/layer.1/');
    expect(await legend('op'), 'op types').toEqual(expectFor((nd) => nd.op_type));
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('[data-chart="bands"] .mpv-legend-label')].map((e) => e.textContent),
    );
    expect(shown, 'the legend as text').toEqual(expectFor((nd) => nd.op_type).map((g) => g[0]));
  });
});
