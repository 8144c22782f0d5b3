// Exports: the plan JSON equals the CLI's, the table CSV, the annotated .onnx
// equals `memplan annotate`'s bytes, the Netron attachment, each chart's PNG and SVG.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MEDIUM } from '../viz-fixtures.js';
import { CLI, cliInfo, fixturePlan, grab, openPlanned, useBrowser } from './harness.js';

const env = useBrowser({ setup: (page, e) => openPlanned(page, e, MEDIUM) });
let page;
beforeAll(() => {
  page = env.page;
});

describe('exports', () => {
  it("exports: plan JSON equals the CLI, table CSV, annotated .onnx equals the CLI's, Netron attachment, chart PNG and SVG", async () => {
    const mp = fixturePlan(MEDIUM);
    const plan = await grab(page, '[data-export="plan-json"]');
    expect(plan.name, 'plan file name').toBe('ch_ppocr_mobile_v2.0_cls_infer.plan.json');
    const doc = JSON.parse(plan.bytes.toString('utf8'));
    expect(doc.provenance?.model?.name, "the page's provenance (state.test.js)").toBe(MEDIUM.file.split('/').pop());
    delete doc.provenance;
    expect(JSON.stringify(doc), 'plan JSON').toBe(JSON.stringify(mp));
    const csv = (await grab(page, '[data-export="table-csv"]')).bytes.toString('utf8');
    expect(csv.split('\n')[0], 'CSV header').toBe(
      'value,dtype,shape,size,start,end,live for,owner,slot,offset,note,reuses (in place)',
    );
    expect(csv.trim().split('\n').length, 'CSV lines').toBe(mp.values.length + 1);
    const annotated = await grab(page, '[data-export="annotated-onnx"]');
    const dir = mkdtempSync(join(tmpdir(), 'memplan-annotate-'));
    execFileSync(CLI, ['annotate', MEDIUM.file, '-o', join(dir, 'out.onnx')]);
    expect(
      annotated.bytes.equals(readFileSync(join(dir, 'out.onnx'))),
      'annotated .onnx equals `memplan annotate`',
    ).toBe(true);
    rmSync(dir, { recursive: true, force: true });
    const att = JSON.parse((await grab(page, '[data-export="netron"]')).bytes.toString('utf8'));
    expect(att.signature, 'attachment signature').toBe('netron:attachment');
    const sized = new Set(
      att.metrics.filter((x) => x.kind === 'value' && x.name === 'memplan.size_bytes').map((x) => x.target),
    );
    expect(sized.size, 'attachment values with a size').toBe(mp.values.filter((v) => v.size !== null).length);
    const named = mp.nodes.filter((nd) => nd.name);
    const live = att.metrics.filter((x) => x.kind === 'node' && x.name === 'memplan.live_bytes').map((x) => x.target);
    expect(live, 'attachment node live bytes, by node name').toEqual(named.map((nd) => nd.name));
    const peak = att.metrics.find((x) => x.kind === 'graph' && x.name === 'memplan.peak_bytes');
    expect(peak?.value, 'attachment peak').toBe(mp.peak_bytes);
    expect(peak?.target, 'attachment graph target').toBe(cliInfo(MEDIUM.file).graph_name);
    for (const chart of ['memory', 'timeline', 'arena', 'slots']) {
      const png = await grab(page, `[data-export="${chart}-png"]`);
      expect(png.bytes.subarray(1, 4).toString('latin1'), `${chart} PNG`).toBe('PNG');
      const svg = (await grab(page, `[data-export="${chart}-svg"]`)).bytes.toString('utf8');
      expect(
        svg.startsWith('<svg') && (svg.includes('<rect') || svg.includes('<path')),
        `${chart} SVG: ${svg.slice(0, 120)}`,
      ).toBe(true);
    }
  });
});
