// Charts, selection and tooltips: hover and click on the bars, a chart that
// catches up after a zoom made while it was off-screen, memory stacked by tag,
// the selected value's producer and consumers, and the memory chart's note.
import { beforeAll, describe, expect, it } from 'vitest';
import { formatShape } from '../../web/src/data/format.js';
import { encodeModel } from '../onnx-encode.js';
import { dimArgs, MEDIUM } from '../viz-fixtures.js';
import {
  artifact,
  barPoint,
  cliJson,
  fixturePlan,
  openPlanned,
  revealRow,
  tableRows,
  TIMEOUT,
  useBrowser,
  waitRows,
} from './harness.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, MEDIUM) });
let page;
beforeAll(() => {
  page = env.page;
});
const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

describe('charts, selection, tooltips', () => {
  it('hovering a bar shows its tooltip in every chart; a click selects it in the table', async () => {
    const plan = fixturePlan(MEDIUM);
    const hasViews = new Set(plan.values.filter((x) => x.view).map((x) => x.owner));
    const v = plan.values
      .filter((x) => !x.view && x.size && !hasViews.has(x.name))
      .sort((a, b) => (b.end - b.start + 1) * b.size - (a.end - a.start + 1) * a.size)[0]; // the largest bar in both charts
    const size = `${v.size.toLocaleString('en-US')} B`;
    const type = `${v.dtype} ${formatShape(v.shape)}`;
    const producer = plan.nodes.find((nd) => nd.outputs.includes(v.name));
    for (const chart of ['timeline', 'arena']) {
      const p = await barPoint(page, chart, v.name);
      await page.mouse.move(p.x, p.y);
      await page.waitForSelector('.mpv-tooltip:not([hidden])', { timeout: 5000 });
      const tip = await page.evaluate(() => ({
        title: document.querySelector('.mpv-tip-title').textContent,
        text: document.querySelector('.mpv-tooltip').textContent,
      }));
      expect(tip.title, `${chart} tooltip title`).toBe(v.name);
      expect(tip.text, `${chart} tooltip size`).toContain(size);
      expect(tip.text, `${chart} tooltip interval`).toContain(`positions ${v.start}–${v.end}`);
      expect(tip.text, `${chart} tooltip offset`).toContain(`offset ${v.offset.toLocaleString('en-US')}`);
      expect(tip.text, `${chart} tooltip dtype and shape`).toContain(type);
      expect(
        !producer ||
          (tip.text.includes(`made by${producer.op_type}`) && tip.text.includes(`(position ${producer.index})`)),
        `${chart} tooltip ${JSON.stringify(tip.text)} names its node`,
      ).toBe(true);
    }
    await page.screenshot({ path: artifact('browser-tooltip.png') });
    const c = await barPoint(page, 'timeline', v.name);
    await page.mouse.click(c.x, c.y);
    await page
      .waitForFunction((n) => document.querySelector('.mpv-table tbody tr.selected')?.dataset.name === n, v.name, {
        timeout: 5000,
      })
      .catch(async () => {
        const got = await page.evaluate(() => ({
          selected: window.memplanView.state.selected,
          row: document.querySelector('.mpv-table tbody tr.selected')?.dataset.name ?? null,
        }));
        throw new Error(`the clicked value ${v.name} is not selected in the table: ${JSON.stringify(got)}`);
      });
    // The memory chart: a position tooltip.
    const r = await page.evaluate(() => {
      document.querySelector('[data-chart="memory"]').scrollIntoView({ block: 'center' });
      const b = document.querySelector('[data-chart="memory"] .mpv-svg').getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    });
    await page.mouse.move(r.x, r.y);
    await page.waitForFunction(
      () => /^position \d+$/.test(document.querySelector('.mpv-tip-title')?.textContent ?? ''),
      null,
      { timeout: 5000 },
    );
    const pos = await page.evaluate(() => ({
      p: Number(document.querySelector('.mpv-tip-title').textContent.split(' ')[1]),
      text: document.querySelector('.mpv-tooltip').textContent,
    }));
    const nd = plan.nodes[pos.p];
    expect(pos.text, "the position tooltip names its node's op").toContain(`node${nd.op_type}`);
    await page.mouse.move(2, 2);
  });

  it('a chart scrolled out of view catches up: the slot chart follows a zoom made while it was off-screen (in its SVG export, and once scrolled back)', async () => {
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    }); // the slot chart is below the fold
    const range = await page.evaluate(() => {
      const { linked } = window.memplanView.view;
      const [a, b] = linked.fullDomain;
      linked.setXDomain([a + (b - a) / 5, a + (b - a) / 2]);
      return linked.domain();
    });
    await frames();
    // The timeline and the slot chart have the same margins: the same x ticks.
    // The exported SVG's x axis tick labels (as text: parsing it in the page would apply its <style>, which the CSP refuses).
    const svgTicks = (svg) => {
      const axis = svg.slice(svg.indexOf('class="axis axis-x"'), svg.indexOf('class="axis axis-y"'));
      return [...axis.matchAll(/<text[^>]*>([^<]*)<\/text>/g)]
        .map((t) => t[1])
        .sort((a, b) => a - b)
        .join(' ');
    };
    const exported = await page.evaluate(() => ({
      timeline: window.memplanView.view.charts.timeline.toSVG(),
      slots: window.memplanView.view.charts.slots.toSVG(),
    }));
    expect(svgTicks(exported.timeline), 'timeline ticks').not.toBe('');
    expect(svgTicks(exported.slots), `slot chart SVG x ticks for [${range}]`).toBe(svgTicks(exported.timeline));
    await page.evaluate(() => document.querySelector('[data-chart="slots"]').scrollIntoView({ block: 'center' }));
    await page
      .waitForFunction(
        () => {
          const ticks = (root) =>
            [...root.querySelectorAll('.axis-x .tick text')]
              .map((t) => t.textContent)
              .sort((a, b) => a - b)
              .join(' ');
          return (
            ticks(document.querySelector('[data-chart="slots"]')) ===
            ticks(document.querySelector('[data-chart="timeline"]'))
          );
        },
        null,
        { timeout: 5000 },
      )
      .catch(() => {
        throw new Error('the slot chart did not redraw once scrolled into view');
      });
    await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
  });

  it("memory over time stacks the profile by bucket and tag; its totals are the CLI profile's total_bytes", async () => {
    const pr = cliJson('profile', MEDIUM.file, dimArgs(MEDIUM.dims));
    await page.click('[data-chart="memory"] [data-mode="stacked"]');
    await page.waitForFunction(() => window.memplanView.view.charts.memory.mode === 'stacked', null, { timeout: 5000 });
    // The chart redraws on the next animation frame: wait for the stacked legend.
    await page
      .waitForFunction(
        () =>
          [...document.querySelectorAll('[data-chart="memory"] .legend text')].some((t) => t.textContent === 'naive'),
        null,
        { timeout: 5000 },
      )
      .catch(() => {});
    const got = await page.evaluate(() => {
      const c = window.memplanView.view.charts.memory;
      return {
        total: [...c.profile.total],
        layers: c.profile.layers.map((l) => l.key),
        legend: [...document.querySelectorAll('[data-chart="memory"] .legend text')].map((t) => t.textContent),
      };
    });
    expect(got.total, 'stack totals').toEqual(pr.nodes.map((nd) => nd.profile.total_bytes));
    const keys = new Set();
    for (const nd of pr.nodes)
      for (const b of ['inputs', 'initializers', 'intermediates', 'outputs'])
        for (const [t, a] of Object.entries(nd.profile[b])) if (a) keys.add(`${b}:${t}`);
    expect([...got.layers].sort(), 'layers').toEqual([...keys].sort());
    for (const k of ['naive', 'arena top']) expect(got.legend, `legend has ${k}`).toContain(k);
    for (const k of got.layers) expect(got.legend, `legend has ${k}`).toContain(k.replace(/:$/, ''));
    expect(
      await page.$('[data-chart="memory"] .ref-bound, [data-chart="memory"] .ref-peak'),
      'the lower bound line',
    ).not.toBe(null);
    const svg = await page.evaluate(() => window.memplanView.view.charts.memory.toSVG());
    expect((svg.match(/<path/g) ?? []).length, 'SVG export has the stacked layers').toBeGreaterThanOrEqual(
      got.layers.length,
    );
    await page.locator('[data-chart="memory"]').screenshot({ path: artifact('browser-memory-stacked.png') });
  });

  it('clicking a value highlights its producer and its consumers in the node table and on the timeline', async () => {
    const plan = fixturePlan(MEDIUM);
    const consumersOf = (n) => plan.nodes.filter((nd) => nd.inputs.includes(n)).map((nd) => nd.index);
    const v = plan.values.find(
      (x) => plan.nodes.some((nd) => nd.outputs.includes(x.name)) && consumersOf(x.name).length >= 2,
    );
    const producer = plan.nodes.find((nd) => nd.outputs.includes(v.name)).index;
    const consumers = consumersOf(v.name);
    await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
    await revealRow(page, v.name);
    const row = page.locator(`.mpv-table tbody tr[data-name=${JSON.stringify(v.name)}]`);
    await row.scrollIntoViewIfNeeded();
    await row.click();
    await page.waitForFunction((n) => window.memplanView.state.selected === n, v.name, { timeout: 5000 });
    const marks = await page.evaluate(() => ({
      producer: [...document.querySelectorAll('[data-chart="timeline"] line.mark-producer')].map((l) =>
        Number(l.dataset.position),
      ),
      consumers: [...document.querySelectorAll('[data-chart="timeline"] line.mark-consumer')].map((l) =>
        Number(l.dataset.position),
      ),
      text: document.querySelector('.mpv-node-links').textContent,
    }));
    expect(marks.producer, 'timeline producer mark').toEqual([producer]);
    expect(marks.consumers, 'timeline consumer marks').toEqual(consumers);
    expect(
      marks.text.includes(`made by position ${producer} `) && marks.text.includes(`read by ${consumers.length} nodes`),
      `links line: ${marks.text}`,
    ).toBe(true);
    await page.locator('[data-chart="timeline"]').screenshot({ path: artifact('browser-links-timeline.png') });
    await page.click('[data-table="nodes"]');
    await waitRows(page, plan.nodes.length);
    const all = await tableRows(page);
    const rows = {
      producer: all.filter((r) => r.cls.split(' ').includes('producer')).map((r) => r.position),
      consumers: all.filter((r) => r.cls.split(' ').includes('consumer')).map((r) => r.position),
    };
    expect(rows.producer, 'node table producer row').toEqual([producer]);
    expect(rows.consumers, 'node table consumer rows').toEqual(consumers);
    await page.screenshot({ path: artifact('browser-links-nodes.png') });
    await page.click('[data-table="values"]');
    // A second click on the same value clears the selection and the marks.
    await revealRow(page, v.name);
    await page.locator(`.mpv-table tbody tr[data-name=${JSON.stringify(v.name)}]`).click();
    await page.waitForFunction(
      () => window.memplanView.state.selected === null && !document.querySelector('[data-chart="timeline"] .mark-node'),
      null,
      { timeout: 5000 },
    );
  });

  it('a model with no nodes after a deferred one: the memory chart drops the deferred note', async () => {
    const open = async (name, spec) => {
      await page.setInputFiles('#file', {
        name,
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(encodeModel(spec)),
      });
      await page.waitForFunction(
        (n) => document.querySelector('.mpv-model-name').textContent === n && document.body.dataset.state === 'ready',
        name,
        { timeout: TIMEOUT },
      );
      return page.evaluate(() => {
        window.memplanView.view.charts.memory.renderNow();
        return document.querySelector('[data-chart="memory"] .chart-message').textContent;
      });
    };
    const deferred = await open('deferred.onnx', {
      nodes: [{ opType: 'Relu', name: 'r', inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', elemType: 1, shape: ['N'] }],
      outputs: [{ name: 'y', elemType: 1, shape: ['N'] }],
    });
    expect(deferred, 'memory chart note, deferred').toBe(
      'no sizes known yet: the plan is deferred (bind the dims above)',
    );
    const empty = await open('empty.onnx', { nodes: [], inputs: [], outputs: [] });
    expect(empty, 'memory chart note, no nodes').toBe('');
  });
});

describe('the wheel, the keys and the chart edges', () => {
  const domain = () => page.evaluate(() => window.memplanView.view.linked.xDomain);
  const overTimeline = async () => {
    const r = await page.evaluate(() => {
      const el = document.querySelector('[data-chart="timeline"]');
      el.scrollIntoView({ block: 'center' });
      const b = el.querySelector('.zoom-surface').getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    });
    await page.mouse.move(r.x, r.y);
  };

  it('the wheel over a chart scrolls the page; Ctrl+wheel, or the wheel over a focused chart, zooms', async () => {
    await openPlanned(page, env, MEDIUM);
    // The OCR classifier's first 213 nodes are folded at load: the page opens on the others.
    expect(await domain()).toEqual([213, 471]);
    await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
    await page.evaluate(() => document.activeElement?.blur());
    await overTimeline();
    const y0 = await page.evaluate(() => window.scrollY);
    for (let k = 0; k < 3; k++) await page.mouse.wheel(0, 120);
    await page.waitForFunction((y) => window.scrollY > y, y0, { timeout: 5000 });
    expect(await domain(), 'not zoomed by a plain wheel').toBe(null);
    await overTimeline();
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -240);
    await page.keyboard.up('Control');
    await page.waitForFunction(() => window.memplanView.view.linked.xDomain !== null, null, { timeout: 5000 });
    await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
    await page.focus('[data-chart="timeline"]');
    const y1 = await page.evaluate(() => window.scrollY);
    await page.mouse.wheel(0, -240);
    await page.waitForFunction(() => window.memplanView.view.linked.xDomain !== null, null, { timeout: 5000 });
    expect(await page.evaluate(() => window.scrollY), 'a focused chart keeps the page where it is').toBe(y1);
    await page.evaluate(() => window.memplanView.view.linked.setXDomain(null));
  });

  it('a focused chart pans with ←/→, zooms with +/−, shows all with 0, and Escape clears the selection', async () => {
    const P = await page.evaluate(() => window.memplanView.view.linked.fullDomain[1]);
    await page.focus('[data-chart="arena"]');
    await page.keyboard.press('+');
    expect(await domain()).toEqual([P / 2 - P / 3, P / 2 + P / 3]);
    await page.keyboard.press('ArrowLeft');
    const w = (2 * P) / 3;
    expect(await domain()).toEqual([P / 2 - P / 3 - w / 10, P / 2 + P / 3 - w / 10]);
    await page.keyboard.press('0');
    expect(await domain()).toBe(null);
    await page.evaluate(() => window.memplanView.select(window.memplanView.plan.values[0].name));
    await page.waitForFunction(() => window.memplanView.state.selected !== null, null, { timeout: 5000 });
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => window.memplanView.state.selected)).toBe(null);
  });

  it('the selection outline stays inside the chart when its bar runs past the edges after a zoom', async () => {
    const plan = fixturePlan(MEDIUM);
    const v = plan.values.filter((x) => !x.view && x.size).sort((a, b) => b.end - b.start - (a.end - a.start))[0]; // the longest interval
    await page.evaluate((n) => window.memplanView.select(n), v.name);
    const mid = (v.start + v.end + 1) / 2;
    await page.evaluate((m) => window.memplanView.view.linked.setXDomain([m - 1, m + 1]), mid);
    await frames();
    for (const chart of ['timeline', 'arena']) {
      const r = await page.evaluate((c) => {
        const root = document.querySelector(`[data-chart="${c}"]`);
        const o = root.querySelector('.mark-selected');
        const a = root.querySelector('.zoom-surface').getBoundingClientRect(),
          b = o?.getBoundingClientRect();
        return b ? { left: b.left - a.left, right: b.right - a.right } : null;
      }, chart);
      expect(r, `${chart}: the outline is drawn`).not.toBe(null);
      expect(r.left, `${chart}: left edge`).toBeGreaterThanOrEqual(-2);
      expect(r.right, `${chart}: right edge`).toBeLessThanOrEqual(2);
    }
    await page.evaluate(() => {
      window.memplanView.view.linked.setXDomain(null);
      window.memplanView.select(null);
    });
  });
});

describe('touch', () => {
  it('a tap on a bar shows its tooltip (there is no hover before a tap) and selects it', async () => {
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const p = await ctx.newPage();
    await p.goto(env.base, { timeout: TIMEOUT });
    await p.waitForSelector('body[data-state="ready"]', { timeout: TIMEOUT });
    const name = 'Equal_0_C'; // a buffer without views (a view under the pointer wins over its root)
    const pt = await barPoint(p, 'timeline', name);
    await p.touchscreen.tap(pt.x, pt.y);
    await p.waitForSelector('.mpv-tooltip:not([hidden])', { timeout: 5000 });
    expect(await p.textContent('.mpv-tip-title')).toBe(name);
    expect(await p.evaluate(() => window.memplanView.state.selected)).toBe(name);
    await ctx.close();
  });
});
