// The value and node tables: columns, dtype and shape, sort, filter by
// regular expression, every row equal to the CLI's plan.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatShape } from '../../web/src/data/format.js';
import { IO_ROWS } from '../../web/src/app/model-info.js';
import { MEDIUM } from '../viz-fixtures.js';
import { encodeModel } from '../onnx-encode.js';
import { fixturePlan, openFile, openPlanned, tableCount, tableRows, useBrowser, waitRows } from './harness.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, MEDIUM) });
let page;
beforeAll(() => {
  page = env.page;
});

describe('tables', () => {
  it('the value table shows dtype and shape, sorts, and filters by regular expression', async () => {
    const plan = fixturePlan(MEDIUM);
    const head = await page.$$eval('.mpv-table thead th', (ths) => ths.map((th) => th.dataset.key));
    expect(head.slice(0, 4), 'value columns').toEqual(['name', 'dtype', 'shape', 'size']);
    const cells = (await tableRows(page)).slice(0, 50).map((r) => [r.name, r.cells[1], r.cells[2]]);
    const byName = new Map(plan.values.map((x) => [x.name, x]));
    for (const [name, dtype, shape] of cells) {
      const x = byName.get(name);
      expect(`${dtype} ${shape}`, `${name} dtype and shape`).toBe(`${x.dtype} ${formatShape(x.shape)}`);
    }
    const RE = 'batch_norm_1\\d|conv2d_4';
    await page.fill('.mpv-filter', RE);
    await page.waitForFunction(
      (re) =>
        [...document.querySelectorAll('.mpv-table tbody tr:not(.mpv-spacer)')].every((tr) =>
          new RegExp(re, 'i').test(tr.cells[0].textContent + ' ' + tr.cells[7].textContent),
        ),
      RE,
      { timeout: 5000 },
    );
    const want = plan.values.filter(
      (x) => new RegExp(RE, 'i').test(x.name) || new RegExp(RE, 'i').test(x.owner),
    ).length;
    expect(want, `the filter ${RE} matches in ${MEDIUM.name}`).toBeGreaterThan(0);
    const filtered = await tableRows(page);
    expect(filtered.length, 'filtered rows').toBe(want);
    expect(await tableCount(page), 'filtered row count').toBe(want);
    for (const r of filtered)
      expect(`${r.cells[0]} ${r.cells[7]}`, `row ${r.name} matches`).toMatch(new RegExp(RE, 'i'));
    await page.click('.mpv-table th[data-key="size"]');
    const sizes = (await tableRows(page)).map((r) => Number(r.cells[3].replace(/[^0-9]/g, '')) || 0);
    expect(sizes, 'sorted by size, descending').toEqual([...sizes].sort((a, b) => b - a));
    await page.fill('.mpv-filter', '');
    await waitRows(page, plan.values.length);
  });

  it('a cell whose text a narrow column may cut carries the whole text as its title (a shape at 200% zoom)', async () => {
    const plan = fixturePlan(MEDIUM);
    const cells = await page.$$eval('.mpv-table tbody tr:not(.mpv-spacer)', (trs) =>
      trs.slice(0, 30).map((tr) => [tr.cells[0].textContent, tr.cells[2].textContent, tr.cells[2].title]),
    );
    const byName = new Map(plan.values.map((x) => [x.name, x]));
    const shaped = cells.filter(([name]) => byName.get(name)?.shape);
    expect(shaped.length).toBeGreaterThan(0);
    for (const [name, text, title] of shaped) {
      expect(text, `${name}'s shape`).toBe(formatShape(byName.get(name).shape));
      expect(title, `${name}'s shape cell title`).toBe(text.length > 4 ? text : '');
    }
  });

  it("the node table lists the plan's nodes: op, name, inputs, outputs", async () => {
    const plan = fixturePlan(MEDIUM);
    await page.click('[data-table="nodes"]');
    await waitRows(page, plan.nodes.length);
    const rows = (await tableRows(page)).map((r) => r.cells.slice(0, 5));
    const dash = (a) => a.filter(Boolean).join(', ') || '—';
    const want = plan.nodes.map((nd) => [
      nd.index.toLocaleString('en-US'),
      nd.op_type,
      nd.name || '—',
      dash(nd.inputs),
      dash(nd.outputs),
    ]);
    expect(rows, 'node rows').toEqual(want);
    await page.fill('.mpv-filter', '^Conv$');
    const convs = plan.nodes.filter((nd) => nd.op_type === 'Conv').length;
    await waitRows(page, convs).catch(async () => {
      throw new Error(`filter ^Conv$: ${await tableCount(page)} rows, want ${convs}`);
    });
    await page.fill('.mpv-filter', '');
    await page.click('[data-table="values"]');
    await waitRows(page, plan.values.length);
  });

  it('the model summary lists at most IO_ROWS graph outputs and says how many more (a wide model stays a summary)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-wide-'));
    const file = join(dir, 'wide.onnx');
    const n = IO_ROWS + 57;
    const outs = Array.from({ length: n }, (_, i) => ({ name: `y${i}`, elemType: 1, shape: [4] }));
    writeFileSync(
      file,
      encodeModel({
        nodes: outs.map((o, i) => ({ opType: 'Relu', name: `r${i}`, inputs: ['x'], outputs: [o.name] })),
        inputs: [{ name: 'x', elemType: 1, shape: [4] }],
        outputs: outs,
      }),
    );
    try {
      await openFile(page, file);
      const rows = await page.$$eval('table.mpv-io[data-role="outputs"] tbody tr', (trs) =>
        trs.map((tr) => tr.textContent),
      );
      expect(rows.length).toBe(IO_ROWS + 1);
      expect(rows[0]).toBe('y0float[4]');
      expect(rows.at(-1)).toBe('… and 57 more (all are in the value table)');
      expect(await page.$$eval('table.mpv-io[data-role="inputs"] tbody tr', (trs) => trs.length)).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
