// Exact 64-bit counts: a model whose tensors are 4 * (2^27 + 1)^2 = 2^56 +
// 2^30 + 4 bytes (no double holds that) shows and exports the CLI's exact
// counts in the figures, the value table, the tooltip and the plan JSON,
// where JSON.parse alone would round them (72057595111669764 to ...760).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeModel } from '../onnx-encode.js';
import { parseExact, stringifyExact } from '../../web/src/data/exact.js';
import { barPoint, CLI, grab, openFile, openPage, revealRow, useBrowser } from './harness.js';

// float32 [2^27 + 1, 2^27 + 1] (a dim is at most 2^53): 2^56 + 2^30 + 4 bytes each.
const D = 2 ** 27 + 1;
const BYTES = 4n * BigInt(D) ** 2n;
const dir = mkdtempSync(join(tmpdir(), 'memplan-exact-'));
const file = join(dir, 'huge.onnx');
writeFileSync(
  file,
  encodeModel({
    nodes: [
      { opType: 'Relu', name: 'r1', inputs: ['x'], outputs: ['a'] },
      { opType: 'Relu', name: 'r2', inputs: ['a'], outputs: ['y'] },
    ],
    inputs: [{ name: 'x', elemType: 1, shape: [D, D] }],
    outputs: [{ name: 'y', elemType: 1, shape: [D, D] }],
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The CLI's plan, parsed exactly (Node 20 has no JSON.parse source access: the marker path).
const cliText = execFileSync(CLI, ['plan', file, '--json'], { encoding: 'utf8' });
const cli = parseExact(cliText, { useSource: false });
const exactB = (n) => `${BigInt(n).toLocaleString('en-US')} B`;

const env = useBrowser({ setup: openPage });
let page;
beforeAll(async () => {
  page = env.page;
  await openFile(page, file);
});

describe('64-bit byte counts stay exact', () => {
  it('the fixture needs them: its sizes are beyond 2^53 and a double would round them', () => {
    const a = cli.values.find((v) => v.name === 'a');
    expect(a.size, 'size of a').toBe(BYTES);
    expect(typeof cli.peak_bytes, 'peak is a BigInt').toBe('bigint');
    expect(String(JSON.parse(cliText).values.find((v) => v.name === 'a').size), 'JSON.parse rounds').not.toBe(
      String(BYTES),
    );
  });

  it('the figures, the value table and the tooltip show the exact counts', async () => {
    const figs = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('[data-figure]')].map((f) => [
          f.dataset.figure,
          f.querySelector('.mpv-figure-exact').textContent,
        ]),
      ),
    );
    expect(figs.naive, 'naive').toBe(exactB(cli.naive_bytes));
    expect(figs.peak, 'peak').toBe(exactB(cli.peak_bytes));
    expect(figs.bound, 'lower bound').toBe(exactB(cli.lower_bound_bytes));
    // x (outside the arena) + the peak: three of them, beyond 2^53 too
    expect(cli.total_bytes, 'total_bytes').toBe(cli.inputs.bytes + cli.peak_bytes);
    expect(typeof cli.total_bytes, 'total is a BigInt').toBe('bigint');
    expect(figs.weights, 'weights').toBe('0 B');
    expect(figs.total, 'total to fit').toBe(exactB(cli.total_bytes));
    await revealRow(page, 'a');
    const cells = await page.evaluate(() => {
      const tr = [...document.querySelectorAll('.mpv-table tbody tr')].find((r) => r.dataset.name === 'a');
      const head = [...document.querySelectorAll('.mpv-table thead th')].map((th) => th.dataset.key ?? th.textContent);
      return { head, cells: [...tr.cells].map((td) => td.textContent) };
    });
    const sizeCol = cells.head.findIndex((h) => /^size/.test(h));
    expect(cells.cells[sizeCol], 'table size of a').toBe(BYTES.toLocaleString('en-US'));
    const pt = await barPoint(page, 'timeline', 'a');
    await page.mouse.move(pt.x, pt.y);
    await page.waitForSelector('.mpv-tooltip:not([hidden])', { timeout: 5000 });
    const tip = await page.textContent('.mpv-tooltip');
    expect(tip, 'tooltip size').toContain(`(${exactB(BYTES)})`);
  });

  it('the exported plan JSON holds the exact counts', async () => {
    const dl = await grab(page, '[data-export="plan-json"]');
    const text = dl.bytes.toString('utf8');
    expect(text, 'the exact size is written').toContain(`"size": ${BYTES}`);
    const got = parseExact(text, { useSource: false });
    delete got.provenance; // the page's own record (state.test.js)
    expect(stringifyExact(got), 'plan JSON equals the CLI').toBe(stringifyExact(cli));
  });
});
