// Security: the CSP is strict and in force, another site's ?url= is refused,
// model strings are text (never HTML), and no request leaves localhost.
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeModel, HOSTILE_INPUT, hostileModel } from '../onnx-encode.js';
import { artifact, openPage, shown, TIMEOUT, useBrowser, waitState } from './harness.js';

const env = useBrowser({ setup: openPage });
let page;
beforeAll(() => {
  page = env.page;
});

describe('security, CSP, text not HTML', () => {
  it('the CSP meta is in force and nothing violated it', async () => {
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    expect(csp, 'script-src').toMatch(/script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    expect((await shown(page)).csp, 'CSP violations').toEqual([]);
  });

  it('the CSP is strict: no unsafe-inline/unsafe-eval, objects, base or forms', async () => {
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    const dirs = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );
    expect(csp, 'CSP allows inline/eval/wildcard').not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/);
    expect(dirs['default-src'], 'default-src').toEqual(["'self'"]);
    expect(dirs['object-src'], 'object-src').toEqual(["'none'"]);
    expect(dirs['base-uri'], 'base-uri').toEqual(["'none'"]);
    expect(dirs['form-action'], 'form-action').toEqual(["'none'"]);
    expect(dirs['connect-src'], 'connect-src').toEqual(["'self'"]);
  });

  it('?url= on another site is refused by the CSP with a clear message, and no request leaves', async () => {
    const p2 = await env.context.newPage(); // not env.newPage(): the blocked fetch is an expected console error
    await p2.goto(`${env.base}?url=${encodeURIComponent('https://models.example.com/m.onnx')}`, { timeout: TIMEOUT });
    await p2.waitForFunction(
      () => /own site only/.test(document.querySelector('.mpv-error')?.textContent ?? ''),
      null,
      { timeout: TIMEOUT },
    );
    const csp = await p2.evaluate(() => window.__csp);
    expect(
      csp.some((v) => v.startsWith('connect-src') && v.includes('models.example.com')),
      `a connect-src violation recorded: ${JSON.stringify(csp)}`,
    ).toBe(true);
    await p2.close();
  });

  it('model strings with markup are shown as text, never run as HTML', async () => {
    await page.setInputFiles('#file', {
      name: '<b>hostile</b>.onnx',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(hostileModel()),
    });
    await page.waitForFunction(
      () => document.querySelector('.mpv-model-name').textContent === '<b>hostile</b>.onnx',
      null,
      { timeout: TIMEOUT },
    );
    await waitState(page, 'ready');
    const s = await shown(page);
    expect(s.inputs[0], 'input name shown').toBe(HOSTILE_INPUT);
    const injected = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      elements: document.querySelectorAll('#app img, #app script, #app b, #app i, h2 b, .mpv-tooltip b').length,
    }));
    expect(injected, 'markup from the model').toEqual({ pwned: null, elements: 0 });
    await page.screenshot({ path: artifact('browser-hostile.png'), fullPage: true });
  });

  it('a name <img src=x onerror=alert(1)> is plain text, and no dialog opens', async () => {
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
    const NAME = '<img src=x onerror=alert(1)>';
    const bytes = encodeModel({
      graphName: NAME,
      producer: NAME,
      nodes: [{ opType: 'Relu', name: NAME, inputs: [NAME], outputs: ['y'] }],
      inputs: [{ name: NAME, elemType: 1, shape: [1, NAME] }],
      outputs: [{ name: 'y', elemType: 1, shape: [1, NAME] }],
    });
    await page.setInputFiles('#file', {
      name: `${NAME}.onnx`,
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(bytes),
    });
    await page.waitForFunction((n) => document.querySelector('.mpv-model-name').textContent === n, `${NAME}.onnx`, {
      timeout: TIMEOUT,
    });
    await waitState(page, 'ready');
    const s = await shown(page);
    expect(s.inputs[0], 'input name shown').toBe(NAME);
    const imgs = await page.evaluate(() => document.querySelectorAll('#app img, .mpv-error img').length);
    expect(imgs, 'img elements created from the model').toBe(0);
    await page.waitForTimeout(200);
    expect(dialogs, 'dialogs opened').toEqual([]);
  });

  it('no request left localhost', async () => {
    const external = env.requests.filter((u) => {
      if (u.startsWith('data:') || u.startsWith('blob:')) return false;
      const host = new URL(u).hostname;
      return host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]';
    });
    expect(env.requests.length, 'requests recorded').toBeGreaterThan(0);
    expect(external, 'external requests').toEqual([]);
  });
});
