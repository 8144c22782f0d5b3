// Reproducible state (issue 17 item 6): a link carries the options, dims,
// values and selection and reopens the same view; the exported plan JSON
// records the model's name, size and sha256, the options and the bindings
// (and its args make the same plan with the CLI); PNGs are 2x under a title
// line; the Netron button says how to use its file.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { EXAMPLE } from '../../web/src/example.js';
import { writeHash } from '../../web/src/app/urlstate.js';
import { artifact, cliPlan, grab, TIMEOUT, useBrowser, waitPlan } from './harness.js';

const env = useBrowser();
// The example planned unlike its preset: slots, align 32, in-place on, 256-sample chunks.
const dims = {
  ...Object.fromEntries(Object.entries(EXAMPLE.preset.dims).map(([k, v]) => [k, String(v)])),
  'input:1': '256',
}; // as typed: text
const values = { sr: '8000' };
const args = ['--strategy', 'slots', '--align', '32', '--inplace'];
for (const [k, v] of Object.entries(dims)) args.push('--dim', `${k}=${v}`);
for (const [k, v] of Object.entries(values)) args.push('--value', `${k}=${v}`);
const plan = cliPlan(EXAMPLE_SRC, args);
const selected = plan.values.filter((v) => !v.view && v.size > 0).at(-1).name;
const hash = writeHash({ strategy: 'slots', align: 32, inplace: true, dims, values, selected });

let page;
beforeAll(async () => {
  page = await env.newPage();
  await page.goto(`${env.base}#${hash}`, { timeout: TIMEOUT });
  await waitPlan(page, plan);
  await page.waitForFunction((n) => window.memplanView.state.selected === n, selected, { timeout: TIMEOUT });
});

const viewState = (p) =>
  p.evaluate(() => {
    const s = window.memplanView.state;
    return {
      strategy: s.strategy,
      align: s.align,
      inplace: s.inplace,
      dims: { ...s.dims },
      values: { ...s.values },
      selected: s.selected,
      peak: window.memplanView.plan?.peak_bytes,
    };
  });

describe('reproducible state', () => {
  it('a link opens the view it describes: options, dims, values and selection', async () => {
    const s = await viewState(page);
    expect(s, 'the state the link asked for').toEqual({
      strategy: 'slots',
      align: 32,
      inplace: true,
      dims,
      values,
      selected,
      peak: plan.peak_bytes,
    });
    const row = await page.evaluate(() => document.querySelector('.mpv-table tbody tr.selected')?.dataset.name);
    expect(row, 'the selected row').toBe(selected);
  });

  it('the URL follows the view, and that URL reproduces it in a new tab', async () => {
    await page.evaluate(() => window.memplanView.setOptions({ strategy: 'arena', align: 64, inplace: false }));
    await page.evaluate(() => window.memplanView.setDims({ 'input:1': '512' }));
    const next = cliPlan(EXAMPLE_SRC, [
      ...Object.entries({ ...dims, 'input:1': '512' }).flatMap(([k, v]) => ['--dim', `${k}=${v}`]),
      '--value',
      'sr=8000',
    ]);
    await waitPlan(page, next);
    await page.waitForFunction(() => /align=64/.test(location.hash), null, { timeout: 5000 });
    const url = page.url();
    expect(new URL(url).hash, 'the hash').toContain('strategy=arena');
    expect(new URL(url).hash, 'the hash').toContain('dim.input%3A1=512');
    expect(new URL(url).hash, 'the hash keeps the selection').toContain('select=');
    const want = await viewState(page);
    const p2 = await env.newPage();
    await p2.goto(url, { timeout: TIMEOUT });
    await waitPlan(p2, next);
    await p2.waitForFunction((n) => window.memplanView.state.selected === n, want.selected, { timeout: TIMEOUT });
    expect(await viewState(p2), 'the same view in the new tab').toEqual(want);
    await p2.close();
  });

  it("the exported plan JSON records the model's name, size and sha256, the options and the bindings", async () => {
    const dl = await grab(page, '[data-export="plan-json"]');
    const doc = JSON.parse(dl.bytes.toString('utf8'));
    const file = readFileSync(EXAMPLE_SRC);
    const { provenance } = doc;
    expect(provenance.model, 'model').toEqual({
      name: EXAMPLE.name,
      bytes: file.length,
      sha256: createHash('sha256').update(file).digest('hex'),
    });
    expect(provenance.options, 'options').toEqual({ strategy: 'arena', align: 64, inplace: false });
    expect(provenance.dims, 'dims').toEqual({ ...dims, 'input:1': '512' });
    expect(provenance.values, 'values').toEqual(values);
    expect(provenance.producer, 'producer').toMatch(/^onnx-memplan \d+\.\d+\.\d+.* \(page\)$/);
    // The args make the same plan with the CLI.
    delete doc.provenance;
    expect(doc, 'the plan without provenance equals `memplan plan MODEL ...args`').toEqual(
      cliPlan(EXAMPLE_SRC, provenance.args),
    );
  });

  it('PNG exports are 2x with a title line; the Netron button says how to use its file', async () => {
    const png = await grab(page, '[data-export="memory-png"]');
    writeFileSync(artifact('memory-2x.png'), png.bytes); // to look at
    const width = png.bytes.readUInt32BE(16),
      height = png.bytes.readUInt32BE(20);
    const css = await page.evaluate(() => {
      const plot = document.querySelector('[data-chart="memory"] .mpv-plot');
      return { w: Math.floor(plot.clientWidth), h: Math.floor(plot.clientHeight) };
    });
    expect(width, 'PNG width: 2x the chart').toBe(css.w * 2);
    expect(height, 'PNG height: 2x the chart and a title band').toBe(css.h * 2 + 44);
    const note = await page.evaluate(() => {
      const b = document.querySelector('[data-export="netron"]');
      return document.getElementById(b.getAttribute('aria-describedby'))?.textContent ?? '';
    });
    expect(note, 'the Netron note').toMatch(/open the model in Netron.*drop this \.json on it/);
  });
});
