// Cancel and errors: bytes that are not a model, a long load cancelled, a
// model over the loader's node limit; the page recovers from each.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LARGEST, requireVizFixtures, SYMBOLIC } from '../viz-fixtures.js';
import { DROPPED, OTHER } from './paths.js';
import {
  artifact,
  bindDims,
  cliInfo,
  expectMatchesCli,
  expectPlanShown,
  fixturePlan,
  openFile,
  openPage,
  shown,
  TIMEOUT,
  useBrowser,
  waitState,
} from './harness.js';

requireVizFixtures(); // real npm models, planned with their dims (viz-fixtures.js)
const env = useBrowser({ setup: openPage });
let page;
beforeAll(() => {
  page = env.page;
});

describe('cancel and errors', () => {
  it('bytes that are not a model show the C error message, and the page recovers', async () => {
    await openFile(page, DROPPED);
    await page.setInputFiles('#file', {
      name: 'garbage.onnx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('this is not an onnx model\xff\xff'),
    });
    await waitState(page, 'error');
    const msg = await page.textContent('.mpv-error');
    expect(msg, "in the page's words, the loader's detail after").toMatch(
      /^garbage\.onnx: this is not an ONNX model \(malformed protobuf at byte 0: .+\)$/,
    );
    // The charts, table and exports still show the model opened before: the title (and export file names) keep its name.
    const kept = await page.evaluate(() => [
      document.querySelector('.mpv-model-name').textContent,
      window.memplanView.state.name,
    ]);
    expect(kept, 'title after a failed open').toEqual([basename(DROPPED), basename(DROPPED)]);
    await page.screenshot({ path: artifact('browser-error.png'), fullPage: true });
    await page.setInputFiles('#file', OTHER);
    await waitState(page, 'ready');
    expect(await page.isHidden('.mpv-error'), 'the error box is hidden').toBe(true);
  });

  it('a long load can be cancelled, and the fresh worker opens the next model', async () => {
    // Press Cancel as soon as the worker reports it is parsing.
    await page.evaluate(() => {
      const off = window.memplanView.on('progress', (p) => {
        if (p.stage === 'parsing') {
          off();
          document.querySelector('.mpv-cancel').click();
        }
      });
    });
    await page.setInputFiles('#file', LARGEST.file);
    await waitState(page, 'error');
    const msg = await page.textContent('.mpv-error');
    expect(msg, 'after cancel').toMatch(/cancelled/);
    await openFile(page, SYMBOLIC.file); // the fresh worker works
    await bindDims(page, SYMBOLIC.dims, fixturePlan(SYMBOLIC));
    expectPlanShown(await shown(page), fixturePlan(SYMBOLIC), 'after cancel: ');
  });

  it('an over-limit model (10,000,001 nodes) is an error from the worker, and the page recovers', async () => {
    // A graph field holding 10,000,001 empty nodes (20 MB), made in the page
    // and given to the file input there (sending it over the protocol is slow).
    await page.evaluate((n) => {
      const big = new Uint8Array(1 + 5 + 2 * n);
      big[0] = 0x3a;
      let v = 2 * n,
        p = 1;
      while (v >= 128) {
        big[p++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      big[p++] = v;
      for (let i = p; i < p + 2 * n; i += 2) big[i] = 0x0a;
      const dt = new DataTransfer();
      dt.items.add(new File([big.subarray(0, p + 2 * n)], 'many-nodes.onnx', { type: 'application/octet-stream' }));
      const input = document.querySelector('#file');
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, 10_000_001);
    await waitState(page, 'error');
    const msg = await page.textContent('.mpv-error');
    expect(msg, 'error shown').toContain('more than 10000000 nodes');
    await page.setInputFiles('#file', OTHER);
    await waitState(page, 'ready');
    expectMatchesCli(await shown(page), cliInfo(OTHER));
  });
});

describe('what the page shows while loading, after a cancel, with a saved plan', () => {
  // models/slow.onnx: `file`, served after `ms`, once routed. Resolves to {sent}: a promise of the answer sent (unroute only then).
  const slow = async (ms, file) => {
    const body = readFileSync(file);
    let served;
    const sent = new Promise((r) => {
      served = r;
    });
    await page.route('**/models/slow.onnx', async (route) => {
      await new Promise((r) => setTimeout(r, ms));
      await route.fulfill({ body, contentType: 'application/octet-stream' });
      served();
    });
    return { sent };
  };
  const look = () =>
    page.evaluate(() => ({
      name: document.querySelector('.mpv-model-name').textContent,
      badge: document.querySelector('.mpv-badge').hidden ? null : document.querySelector('.mpv-badge').textContent,
      main: !document.querySelector('.mpv-main').hidden,
    }));

  it('while a model loads, the figures and charts of the one before are not shown under its name', async () => {
    await openFile(page, DROPPED);
    const { sent } = await slow(1500, OTHER);
    await page.evaluate(() => {
      window.memplanView.setModel('models/slow.onnx').catch(() => {});
    });
    await page.waitForFunction(() => document.querySelector('.mpv-model-name').textContent === 'slow.onnx', null, {
      timeout: TIMEOUT,
    });
    expect(await look(), 'loading').toEqual({ name: 'slow.onnx', badge: 'loading', main: false });
    await waitState(page, 'ready');
    expect(await look(), 'planned').toEqual({ name: 'slow.onnx', badge: 'planned', main: true });
    expectMatchesCli(await shown(page), cliInfo(OTHER));
    await sent;
    await page.unroute('**/models/slow.onnx');
  });

  it("after Cancel the closed model's charts are not left up, and the message says what to do", async () => {
    const { sent } = await slow(2500, OTHER);
    await page.evaluate(() => {
      window.memplanView.setModel('models/slow.onnx').catch(() => {});
    });
    await page.waitForSelector('.mpv-cancel:not([hidden])', { timeout: TIMEOUT });
    await page.click('.mpv-cancel');
    await waitState(page, 'error');
    expect(await look()).toEqual({ name: 'slow.onnx', badge: null, main: false });
    expect(await page.textContent('.mpv-error')).toBe(
      'slow.onnx: cancelled. Open a model again (or pick a saved plan) to go on.',
    );
    await sent; // the download goes on after the worker is stopped; its answer is dropped
    await page.unroute('**/models/slow.onnx');
    await openFile(page, OTHER);
    expect((await look()).main).toBe(true);
  });

  it('a saved plan: its options are shown as made and cannot be changed, Annotated .onnx is off, the slot chart says why it is empty', async () => {
    const plan = fixturePlan(SYMBOLIC, ['--align', '256']);
    await page.evaluate((p) => window.memplanView.setPlan(p, 'saved.plan.json'), plan);
    await waitState(page, 'ready');
    const c = await page.evaluate(() => ({
      strategy: [...document.querySelectorAll('[data-strategy]')].map((b) => [
        b.dataset.strategy,
        b.disabled,
        b.classList.contains('on'),
      ]),
      align: [document.querySelector('.mpv-align').disabled, document.querySelector('.mpv-align').value],
      inplace: document.querySelector('.mpv-inplace').disabled,
      annotate: document.querySelector('[data-export="annotated-onnx"]').disabled,
      note: !document.querySelector('.mpv-fixed-note').hidden,
      slots: document.querySelector('[data-chart="slots"] .chart-message').textContent,
    }));
    expect(c).toEqual({
      strategy: [
        ['arena', true, true],
        ['slots', true, false],
      ],
      align: [true, '256'],
      inplace: true,
      annotate: true,
      note: true,
      slots: 'a saved arena plan holds no slot plan: open the model to compare',
    });
    await openFile(page, OTHER);
    expect(
      await page.evaluate(() => [
        document.querySelector('.mpv-align').disabled,
        document.querySelector('[data-export="annotated-onnx"]').disabled,
      ]),
    ).toEqual([false, false]);
  });
});
